import puppeteer, { type Browser, type CDPSession, type Page } from "@cloudflare/puppeteer";
import { DurableObject } from "cloudflare:workers";
import { drizzle } from "drizzle-orm/d1";
import * as schema from "../src/db/schema";
import type { SessionShareStatus } from "../src/db/schema";
import * as repo from "../src/domains/session-shares/repo";
import { automatedLogin, hasVisiblePasswordField, NO_REGISTRY_SELECTORS, PASSWORD_GUARD, VIEWPORT, watermarkScript, type RegistrySelectors } from "../src/domains/session-shares/browser";
import { hasBrowserCapacity } from "../src/db/live-browsers";
import { loadConfig, type Bindings } from "../src/env";
import { randomToken, unseal } from "../src/lib/crypto";

export type RoomConfig = {
  id: string;
  ownerId: string;
  ownerEmail: string | null;
  serviceName: string;
  loginUrl: string;
  /** From the service registry at creation; absent in rooms started before it was passed. */
  selectors?: RegistrySelectors;
  loginMethod: "ai_agent" | "manual";
  accessType: "full" | "view_only";
  maxViewers: number;
  watermarkEnabled: boolean;
  scheduledStart: string | null;
  expiresAt: string;
};
type RoomState = RoomConfig & { status: SessionShareStatus };
type Role = "owner" | "viewer";
type Client = { role: Role; userId: string };
export type Control = { action: "pause" } | { action: "resume" } | { action: "extend"; expiresAt: string } | { action: "watermark"; enabled: boolean };

const TERMINAL: SessionShareStatus[] = ["revoked", "expired", "failed"];
const TICKET_TTL_MS = 60_000;
/** How often the alarm wakes a live room: it keeps the browser session in use and checks expiry. */
const TICK_MS = 30_000;
const MAX_INPUT_BYTES = 2048;
const MOUSE_TYPES = new Set(["mousePressed", "mouseReleased", "mouseMoved", "mouseWheel"]);
const KEY_TYPES = new Set(["keyDown", "keyUp", "char"]);
/** Alt, Ctrl and Meta (CDP modifier bits 1, 2, 4): shortcuts such as copy, view-source and save. */
const BLOCKED_MODIFIERS = 1 | 2 | 4;

/** Maps a stored sealed credential to its AAD, shared by the sealer (service) and this opener. */
export const credentialsAad = (id: string, ownerId: string) => `session-share:${id}:${ownerId}`;

/**
 * One live shared browser session: it owns the Browser Rendering session, logs in, relays the
 * screencast (CDP Page.startScreencast) to viewers over WebSocket, relays their input when access
 * is full, counts viewers against maxViewers, and ends the session on revoke or by alarm at expiry.
 * The credentials are unsealed only inside the login and never leave this object.
 */
export class SessionShareRoom extends DurableObject<Bindings> {
  private state?: RoomState;
  private browser?: Browser;
  private page?: Page;
  private cdp?: CDPSession;
  private casting = false;
  private lastFrame?: string;
  private readonly clients = new Map<WebSocket, Client>();
  private readonly tickets = new Map<string, Client & { exp: number }>();

  private async load(): Promise<RoomState | undefined> {
    this.state ??= await this.ctx.storage.get<RoomState>("state");
    return this.state;
  }

  private async save(patch: Partial<RoomState>) {
    this.state = { ...this.state!, ...patch };
    await this.ctx.storage.put("state", this.state);
  }

  private db() {
    return drizzle(this.env.DB, { schema });
  }

  async start(config: RoomConfig): Promise<void> {
    const scheduled = config.scheduledStart !== null && Date.parse(config.scheduledStart) > Date.now();
    this.state = { ...config, status: scheduled ? "scheduled" : "login_in_progress" };
    await this.ctx.storage.put("state", this.state);
    if (scheduled) {
      await this.ctx.storage.setAlarm(Date.parse(config.scheduledStart!));
      return;
    }
    await this.scheduleTick();
    this.ctx.waitUntil(this.launch());
  }

  async status(): Promise<{ status: SessionShareStatus; viewers: number } | null> {
    const s = await this.load();
    return s ? { status: s.status, viewers: this.viewerCount() } : null;
  }

  async control(c: Control): Promise<RoomState> {
    const s = await this.load();
    if (!s || TERMINAL.includes(s.status)) throw new Error("room ended");
    if (c.action === "pause") {
      await this.setStatus("paused");
      await this.stopCast();
    } else if (c.action === "resume") {
      await this.setStatus("active");
      await this.startCast();
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
    this.lastFrame = undefined;
    await this.ctx.storage.deleteAlarm();
    const browser = this.browser;
    this.browser = this.page = this.cdp = undefined;
    this.casting = false;
    await browser?.close().catch(() => undefined);
    const now = new Date().toISOString();
    await repo.update(this.db(), s.ownerId, s.id, { status, endedAt: now, currentViewers: 0, sealedCredentials: repo.ERASED, ...(reason ? { failureReason: reason } : {}) });
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
    if (s.status === "scheduled") {
      const config = loadConfig(this.env);
      if (!(await hasBrowserCapacity(this.db(), s.ownerId, { perUser: config.MAX_LIVE_BROWSERS_PER_USER, global: config.MAX_LIVE_BROWSERS }))) {
        return this.end("failed", "too many automated browsers were running at its start");
      }
      await this.setStatus("login_in_progress");
      await this.scheduleTick();
      this.ctx.waitUntil(this.launch());
      return;
    }
    await this.scheduleTick();
  }

  private async scheduleTick() {
    await this.ctx.storage.setAlarm(Math.min(Date.parse(this.state!.expiresAt), Date.now() + TICK_MS));
  }

  private async setStatus(status: SessionShareStatus) {
    await this.save({ status });
    await repo.update(this.db(), this.state!.ownerId, this.state!.id, { status });
  }

  private async launch() {
    const s = this.state!;
    try {
      this.browser = await puppeteer.launch(this.env.BROWSER, { keep_alive: 600_000 });
      const page = (this.page = await this.browser.newPage());
      await page.setViewport(VIEWPORT);
      await page.evaluateOnNewDocument(PASSWORD_GUARD);
      page.on("load", () => void this.applyWatermark());
      this.cdp = await page.createCDPSession();
      this.cdp.on("Page.screencastFrame", (f: { data: string; sessionId: number; metadata: { deviceWidth: number; deviceHeight: number } }) =>
        this.onFrame(f),
      );
      await page.goto(s.loginUrl, { waitUntil: "load", timeout: 30_000 });
      // Casting starts on the loaded login page, so the first frame anyone sees is the site.
      await this.startCast();
      if (s.loginMethod === "ai_agent") {
        const row = await repo.findOwned(this.db(), s.ownerId, s.id);
        if (!row) return this.end("failed", "session share missing");
        const creds = JSON.parse(await unseal(this.env.DATA_ENCRYPTION_KEY as string, row.sealedCredentials, credentialsAad(s.id, s.ownerId))) as { u: string; p: string };
        const result = await automatedLogin(page, creds.u, creds.p, s.selectors ?? NO_REGISTRY_SELECTORS);
        if (!result.ok) return this.end("failed", result.reason);
        // The login is done: the site's session now lives in the browser, the password is not needed again.
        await repo.update(this.db(), s.ownerId, s.id, { sealedCredentials: repo.ERASED });
      } else if (!(await this.waitForManualLogin(page))) {
        return;
      }
      if (this.state!.status !== "login_in_progress") return;
      await this.setStatus("active");
      await this.applyWatermark();
      this.broadcastStatus();
      if (this.lastFrame) this.broadcastFrame(this.lastFrame);
    } catch (e) {
      console.error("session share login failed", s.id, e instanceof Error ? e.name : "error");
      await this.end("failed", "the browser session could not log in");
    }
  }

  /** Manual login: the owner signs in through the live view; done once no password field is left. */
  private async waitForManualLogin(page: Page): Promise<boolean> {
    while (this.state?.status === "login_in_progress" && Date.now() < Date.parse(this.state.expiresAt)) {
      await new Promise((r) => setTimeout(r, 1000));
      if (this.page !== page) return false;
      const stillLogin = await hasVisiblePasswordField(page).catch(() => true);
      if (!stillLogin) return true;
    }
    return false;
  }

  private async startCast() {
    if (!this.cdp || this.casting) return;
    this.casting = true;
    await this.cdp.send("Page.startScreencast", { format: "jpeg", quality: 60, maxWidth: VIEWPORT.width, maxHeight: VIEWPORT.height, everyNthFrame: 1 });
  }

  private async stopCast() {
    if (!this.cdp || !this.casting) return;
    this.casting = false;
    await this.cdp.send("Page.stopScreencast").catch(() => undefined);
  }

  private onFrame(f: { data: string; sessionId: number; metadata: { deviceWidth: number; deviceHeight: number } }) {
    void this.cdp?.send("Page.screencastFrameAck", { sessionId: f.sessionId }).catch(() => undefined);
    const msg = JSON.stringify({ type: "frame", data: f.data, width: Math.round(f.metadata.deviceWidth), height: Math.round(f.metadata.deviceHeight) });
    this.lastFrame = msg;
    this.broadcastFrame(msg);
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
    const msg = JSON.stringify({ type: "status", status: s.status, expiresAt: s.expiresAt, accessType: s.accessType, viewers: this.viewerCount() });
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
    await this.page.evaluate(watermarkScript(s.watermarkEnabled, text)).catch(() => undefined);
  }

  /** WebSocket upgrade, authorised by a one-time ticket from the ticket endpoint. */
  override async fetch(request: Request): Promise<Response> {
    const s = await this.load();
    const ticket = new URL(request.url).searchParams.get("ticket") ?? "";
    const t = this.tickets.get(ticket);
    this.tickets.delete(ticket);
    if (!s || TERMINAL.includes(s.status)) return errorResponse(410, "GONE", "The shared session has ended");
    if (!t || t.exp < Date.now()) return errorResponse(401, "UNAUTHORIZED", "Invalid or expired viewer ticket");
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return errorResponse(400, "VALIDATION_ERROR", "Expected a WebSocket upgrade");
    if (t.role === "viewer" && this.viewerCount() >= s.maxViewers) return errorResponse(409, "CONFLICT", "The session has its maximum number of viewers");
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
    if (this.lastFrame && this.mayWatch(who)) server.send(this.lastFrame);
    return new Response(null, { status: 101, webSocket: client });
  }

  private async viewersChanged() {
    const s = this.state;
    if (!s) return;
    this.broadcastStatus();
    if (!TERMINAL.includes(s.status)) await repo.update(this.db(), s.ownerId, s.id, { currentViewers: this.viewerCount() });
  }

  /** Input reaches the page only for full access (the owner always), and never with a modifier shortcut. */
  private async onInput(who: Client, data: unknown) {
    const s = this.state;
    if (!s || !this.cdp || typeof data !== "string" || data.length > MAX_INPUT_BYTES) return;
    if (!this.mayWatch(who) || (who.role === "viewer" && s.accessType !== "full")) return;
    let m: Record<string, unknown>;
    try {
      m = JSON.parse(data) as Record<string, unknown>;
    } catch {
      return;
    }
    const modifiers = typeof m.modifiers === "number" ? m.modifiers & 15 : 0;
    if (modifiers & BLOCKED_MODIFIERS) return;
    if (m.type === "mouse" && MOUSE_TYPES.has(String(m.event))) {
      const x = clamp(m.x, VIEWPORT.width);
      const y = clamp(m.y, VIEWPORT.height);
      const button = ["left", "middle", "right", "none"].includes(String(m.button)) ? String(m.button) : "left";
      await this.cdp
        .send("Input.dispatchMouseEvent", {
          type: m.event as "mousePressed",
          x,
          y,
          button: button as "left",
          clickCount: m.event === "mouseMoved" ? 0 : 1,
          deltaX: m.event === "mouseWheel" ? clamp(m.deltaX, 5000, -5000) : undefined,
          deltaY: m.event === "mouseWheel" ? clamp(m.deltaY, 5000, -5000) : undefined,
          modifiers,
        })
        .catch(() => undefined);
    } else if (m.type === "key" && KEY_TYPES.has(String(m.event))) {
      const key = typeof m.key === "string" ? m.key.slice(0, 32) : "";
      const text = typeof m.text === "string" && m.text.length > 0 ? m.text.slice(0, 4) : undefined;
      // As puppeteer does: a key without text (Tab, arrows) is a raw key-down, so the page's
      // default action (focus moves, caret moves) happens without inserting anything.
      const type = m.event === "keyDown" && !text ? "rawKeyDown" : (m.event as "keyDown");
      await this.cdp
        .send("Input.dispatchKeyEvent", {
          type,
          key,
          code: typeof m.code === "string" ? m.code.slice(0, 32) : undefined,
          text: m.event === "keyUp" ? undefined : text,
          windowsVirtualKeyCode: typeof m.keyCode === "number" ? m.keyCode : undefined,
          modifiers,
        })
        .catch(() => undefined);
    }
  }
}

function clamp(v: unknown, max: number, min = 0): number {
  const n = typeof v === "number" && Number.isFinite(v) ? v : 0;
  return Math.max(min, Math.min(max, n));
}

function errorResponse(status: number, code: string, error: string) {
  return new Response(JSON.stringify({ error, code, status }), { status, headers: { "content-type": "application/json" } });
}

/** The typed client the session-share service uses: one room per share id. */
export function roomFor(env: Bindings, id: string) {
  const ns = env.SESSION_SHARES as DurableObjectNamespace<SessionShareRoom>;
  return ns.get(ns.idFromName(id));
}
