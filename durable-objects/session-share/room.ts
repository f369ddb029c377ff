import puppeteer, { type Browser, type Page } from "@cloudflare/puppeteer";
import { DurableObject } from "cloudflare:workers";
import { randomToken } from "../../src/lib/crypto";
import { cdpInput } from "./input-filter";
import { Screencast } from "./screencast";
import { errorName, logJson } from "../../src/lib/log";
import { BROWSER_DAY_SPENT, isBrowserDaySpent } from "../../src/lib/browser-rendering";

export type RoomStatus =
  | "scheduled"
  | "login_in_progress"
  | "active"
  | "paused"
  | "revoked"
  | "expired"
  | "failed";

export type RoomConfig = {
  id: string;
  ownerId: string;
  ownerEmail: string | null;
  serviceName: string;
  loginUrl: string;
  /** From the service registry at creation; absent in rooms started before it was passed. */
  selectors?: { username: string[]; submit: string[] };
  loginMethod: "ai_agent" | "manual";
  accessType: "full" | "view_only";
  maxViewers: number;
  watermarkEnabled: boolean;
  scheduledStart: string | null;
  expiresAt: string;
};
type RoomState = RoomConfig & { status: RoomStatus };
type Role = "owner" | "viewer";
type Client = { role: Role; userId: string };
export type Control =
  | { action: "pause" }
  | { action: "resume" }
  | { action: "extend"; expiresAt: string }
  | { action: "watermark"; enabled: boolean };
export type RoomRecord = {
  status?: RoomStatus;
  endedAt?: string;
  currentViewers?: number;
  failureReason?: string;
};
export type LoginResult = { ok: true } | { ok: false; reason: string };

/**
 * The session-share domain's part of a room, registered by the entry (src/index.ts): how the tab
 * is prepared, how the login is done and when it is finished, and where the room's state is kept.
 */
export interface RoomHooks {
  viewport: { width: number; height: number };
  /** Runs in every document of the tab before the site's own scripts. */
  pageGuard: string;
  /** Puts every request of the tab (subresources, frames, redirects) through the outbound guard. */
  guardRequests(page: Page): Promise<void>;
  watermark(enabled: boolean, text: string): string;
  /** Signs in with the owner's stored credentials (login method ai_agent), then erases them. */
  automatedLogin(room: RoomConfig, page: Page): Promise<LoginResult>;
  /** A scheduled room asks at its start whether the live-browser caps leave room for it. */
  mayStart(room: RoomConfig): Promise<boolean>;
  /** A manual login is finished once this is true. */
  loggedIn(page: Page): Promise<boolean>;
  /** Writes the room's state; a patch with `endedAt` ends the share, which erases its credentials. */
  record(room: RoomConfig, patch: RoomRecord): Promise<void>;
}

const TERMINAL: RoomStatus[] = ["revoked", "expired", "failed"];
const BROWSER_GONE = "the shared browser stopped";
const TICKET_TTL_MS = 60_000;
/** How often the alarm wakes a live room: it keeps the browser session in use and checks expiry. */
const TICK_MS = 30_000;

/**
 * One live shared browser session: it owns the Browser Rendering session, logs in, relays the
 * screencast to viewers over WebSocket, relays their input when access is full, counts viewers
 * against maxViewers, and ends the session on revoke or by alarm at expiry. The credentials never
 * reach this object: the login hook holds them.
 */
export abstract class SessionShareRoomBase<
  E extends { BROWSER: Fetcher } = { BROWSER: Fetcher },
> extends DurableObject<E> {
  protected abstract roomHooks: (env: E) => RoomHooks;
  private state?: RoomState;
  private browser?: Browser;
  private page?: Page;
  private cast?: Screencast;
  /** A launch is under way: the browser may not be there yet, and that is no fault. */
  private launching = false;
  private readonly clients = new Map<WebSocket, Client>();
  private readonly tickets = new Map<string, Client & { exp: number }>();

  private get hooks() {
    return this.roomHooks(this.env);
  }

  private async load(): Promise<RoomState | undefined> {
    this.state ??= await this.ctx.storage.get<RoomState>("state");
    return this.state;
  }

  private async save(patch: Partial<RoomState>) {
    this.state = { ...this.state!, ...patch };
    await this.ctx.storage.put("state", this.state);
  }

  async start(config: RoomConfig): Promise<void> {
    const scheduled =
      config.scheduledStart !== null && Date.parse(config.scheduledStart) > Date.now();
    this.state = { ...config, status: scheduled ? "scheduled" : "login_in_progress" };
    await this.ctx.storage.put("state", this.state);
    if (scheduled) {
      await this.ctx.storage.setAlarm(Date.parse(config.scheduledStart!));
      return;
    }
    await this.scheduleTick();
    this.ctx.waitUntil(this.launch());
  }

  async status(): Promise<{ status: RoomStatus; viewers: number } | null> {
    const s = await this.load();
    return s ? { status: s.status, viewers: this.viewerCount() } : null;
  }

  async control(c: Control): Promise<RoomState> {
    const s = await this.load();
    if (!s || TERMINAL.includes(s.status)) throw new Error("room ended");
    if (c.action === "pause") {
      await this.setStatus("paused");
      await this.cast?.stop();
    } else if (c.action === "resume") {
      await this.setStatus("active");
      await this.cast?.start();
    } else if (c.action === "extend") {
      await this.save({ expiresAt: c.expiresAt });
      await this.scheduleTick();
    } else {
      await this.save({ watermarkEnabled: c.enabled });
      await this.applyWatermark();
    }
    this.broadcastStatus();
    return this.state!;
  }

  /** Revoke, DELETE and expiry: the browser closes and every viewer is disconnected at once. */
  async end(status: "revoked" | "expired" | "failed", reason?: string): Promise<void> {
    const s = await this.load();
    if (!s || TERMINAL.includes(s.status)) return;
    await this.save({ status });
    for (const [ws] of this.clients) {
      try {
        ws.send(JSON.stringify({ type: "status", status }));
        ws.close(4000, `session ${status}`);
      } catch {
        // The socket is already gone.
      }
    }
    this.clients.clear();
    this.tickets.clear();
    await this.ctx.storage.deleteAlarm();
    const browser = this.browser;
    this.browser = this.page = this.cast = undefined;
    await browser?.close().catch(() => undefined);
    const now = new Date().toISOString();
    await this.hooks.record(s, {
      status,
      endedAt: now,
      currentViewers: 0,
      ...(reason ? { failureReason: reason } : {}),
    });
  }

  async issueTicket(role: Role, userId: string): Promise<string> {
    const s = await this.load();
    if (!s || TERMINAL.includes(s.status)) throw new Error("room ended");
    const ticket = randomToken(24);
    this.tickets.set(ticket, { role, userId, exp: Date.now() + TICKET_TTL_MS });
    return ticket;
  }

  override async alarm(): Promise<void> {
    const s = await this.load();
    if (!s || TERMINAL.includes(s.status)) return;
    if (Date.now() >= Date.parse(s.expiresAt)) return this.end("expired");
    // A live room whose object was restarted holds no browser any more: nothing can revive the
    // session, so it ends rather than showing viewers a share that never draws again.
    if (s.status !== "scheduled" && !this.browser && !this.launching)
      return this.end("failed", BROWSER_GONE);
    if (s.status === "scheduled") {
      if (!(await this.hooks.mayStart(s)))
        return this.end("failed", "too many automated browsers were running at its start");
      await this.setStatus("login_in_progress");
      await this.scheduleTick();
      this.ctx.waitUntil(this.launch());
      return;
    }
    await this.scheduleTick();
  }

  private async scheduleTick() {
    await this.ctx.storage.setAlarm(
      Math.min(Date.parse(this.state!.expiresAt), Date.now() + TICK_MS),
    );
  }

  private async setStatus(status: RoomStatus) {
    await this.save({ status });
    await this.hooks.record(this.state!, { status });
  }

  /** Asks Browser Rendering for a browser (a test stands in another binding's answer here). */
  protected launchBrowser(): Promise<Browser> {
    return puppeteer.launch(this.env.BROWSER, { keep_alive: 600_000 });
  }

  private async launch() {
    const s = this.state!;
    const hooks = this.hooks;
    this.launching = true;
    try {
      const browser = (this.browser = await this.launchBrowser());
      // Chromium dying (or its session dropped) ends the share; end() itself clears this.browser
      // before closing it, so a revoke's own close is not taken for a crash.
      browser.on("disconnected", () => {
        if (this.browser === browser) this.ctx.waitUntil(this.end("failed", BROWSER_GONE));
      });
      const page = (this.page = await this.browser.newPage());
      await hooks.guardRequests(page);
      await page.setViewport(hooks.viewport);
      await page.evaluateOnNewDocument(hooks.pageGuard);
      page.on("load", () => void this.applyWatermark());
      this.cast = new Screencast(await page.createCDPSession(), hooks.viewport, (msg) =>
        this.broadcastFrame(msg),
      );
      await page.goto(s.loginUrl, { waitUntil: "load", timeout: 30_000 });
      // Casting starts on the loaded login page, so the first frame anyone sees is the site.
      await this.cast.start();
      if (s.loginMethod === "ai_agent") {
        const result = await hooks.automatedLogin(s, page);
        if (!result.ok) return this.end("failed", result.reason);
      } else if (!(await this.waitForManualLogin(page))) {
        return;
      }
      if (this.state!.status !== "login_in_progress") return;
      await this.setStatus("active");
      await this.applyWatermark();
      this.broadcastStatus();
      if (this.cast?.lastFrame) this.broadcastFrame(this.cast.lastFrame);
    } catch (e) {
      // The day's browser time spent (the free plan's 10 minutes): no later try today can start
      // one, and the owner is told that rather than that the login failed.
      if (!this.browser && isBrowserDaySpent(e)) {
        logJson("warn", "session share: browser time spent", { shareId: s.id });
        return await this.end("failed", BROWSER_DAY_SPENT);
      }
      logJson("error", "session share login failed", { shareId: s.id, error: errorName(e) });
      await this.end("failed", "the browser session could not log in");
    } finally {
      this.launching = false;
    }
  }

  /** Manual login: the owner signs in through the live view; done once the hook says so. */
  private async waitForManualLogin(page: Page): Promise<boolean> {
    while (
      this.state?.status === "login_in_progress" &&
      Date.now() < Date.parse(this.state.expiresAt)
    ) {
      await new Promise((r) => setTimeout(r, 1000));
      if (this.page !== page) return false;
      if (await this.hooks.loggedIn(page).catch(() => false)) return true;
    }
    return false;
  }

  /** Viewers see frames only once logged in and not paused; the owner also watches a login. */
  private mayWatch(client: Client): boolean {
    const status = this.state?.status;
    if (status === "active") return true;
    return client.role === "owner" && status === "login_in_progress";
  }

  private broadcastFrame(msg: string) {
    for (const [ws, client] of this.clients) if (this.mayWatch(client)) this.safeSend(ws, msg);
  }

  private broadcastStatus() {
    const s = this.state!;
    const msg = JSON.stringify({
      type: "status",
      status: s.status,
      expiresAt: s.expiresAt,
      accessType: s.accessType,
      viewers: this.viewerCount(),
    });
    for (const [ws] of this.clients) this.safeSend(ws, msg);
  }

  private safeSend(ws: WebSocket, msg: string) {
    try {
      ws.send(msg);
    } catch {
      this.clients.delete(ws);
    }
  }

  private viewerCount() {
    let n = 0;
    for (const c of this.clients.values()) if (c.role === "viewer") n++;
    return n;
  }

  private async applyWatermark() {
    const s = this.state;
    if (!this.page || !s) return;
    const text = `Shared by ${s.ownerEmail ?? "a vault user"} · ${s.serviceName}`;
    await this.page.evaluate(this.hooks.watermark(s.watermarkEnabled, text)).catch(() => undefined);
  }

  /** WebSocket upgrade, authorised by a one-time ticket from the ticket endpoint. */
  override async fetch(request: Request): Promise<Response> {
    const s = await this.load();
    const ticket = new URL(request.url).searchParams.get("ticket") ?? "";
    const t = this.tickets.get(ticket);
    this.tickets.delete(ticket);
    if (!s || TERMINAL.includes(s.status))
      return errorResponse(410, "GONE", "The shared session has ended");
    if (!t || t.exp < Date.now())
      return errorResponse(401, "UNAUTHORIZED", "Invalid or expired viewer ticket");
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket")
      return errorResponse(400, "VALIDATION_ERROR", "Expected a WebSocket upgrade");
    if (t.role === "viewer" && this.viewerCount() >= s.maxViewers)
      return errorResponse(409, "CONFLICT", "The session has its maximum number of viewers");
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    server.accept();
    const who: Client = { role: t.role, userId: t.userId };
    this.clients.set(server, who);
    server.addEventListener("message", (e) => void this.onInput(who, e.data));
    const gone = () => {
      if (this.clients.delete(server)) void this.viewersChanged();
    };
    server.addEventListener("close", gone);
    server.addEventListener("error", gone);
    await this.viewersChanged();
    const last = this.cast?.lastFrame;
    if (last && this.mayWatch(who)) server.send(last);
    return new Response(null, { status: 101, webSocket: client });
  }

  private async viewersChanged() {
    const s = this.state;
    if (!s) return;
    this.broadcastStatus();
    if (!TERMINAL.includes(s.status))
      await this.hooks.record(s, { currentViewers: this.viewerCount() });
  }

  /** Input reaches the page only for full access (the owner always); input-filter.ts says what passes. */
  private async onInput(who: Client, data: unknown) {
    const s = this.state;
    const page = this.page;
    if (!s || !page || !this.cast) return;
    if (!this.mayWatch(who) || (who.role === "viewer" && s.accessType !== "full")) return;
    const input = cdpInput(data, this.hooks.viewport);
    if (!input) return;
    await this.cast.send(input.method, input.params).catch(() => undefined);
  }
}

function errorResponse(status: number, code: string, error: string) {
  return new Response(JSON.stringify({ error, code, status }), {
    status,
    headers: { "content-type": "application/json" },
  });
}

export type SessionShareRoomNamespace = DurableObjectNamespace<SessionShareRoomBase>;

/** The typed client the session-share service uses: one room per share id. */
export function roomFor(ns: SessionShareRoomNamespace, id: string) {
  return ns.get(ns.idFromName(id));
}
