import { dbFor, directoryDb, type Db } from "../../db/client";
import type { SessionShareRow, SessionShareStatus } from "../../db/schema";
import type { Bindings, Config } from "../../env";
import type { AuthUser } from "../../kernel/context";
import { randomId, randomToken, seal, sha256Hex } from "../../lib/crypto";
import { AppError, ErrorCode, conflict, notFound, validationError } from "../../lib/errors";
import { guardOptions } from "../../lib/guarded-fetch";
import { assertPublicUrl, type GuardOptions } from "../../lib/outbound-guard";
import { roomFor, type Control } from "../../../durable-objects/session-share/room";
import { credentialsAad } from "./room-hooks";
import { normalizeHost } from "../../kernel/hostname";
import { findLive } from "../passwords";
import { resolveService } from "../registry";
import { NO_REGISTRY_SELECTORS, type RegistrySelectors } from "./browser";
import { requireBrowserCapacity } from "../../db/live-browsers";
import { BROWSER_ABSENT, hasBrowserRendering } from "../../lib/browser-rendering";
import * as repo from "./repo";
import type { CreateSessionShareInput, PatchSessionShareInput, SessionView } from "./schema";

export const TERMINAL: SessionShareStatus[] = ["revoked", "expired", "failed"];
export const MAX_TOTAL_MINUTES = 8 * 60;

export const costCents = (minutes: number, centsPerHour: number) =>
  Math.ceil((minutes / 60) * centsPerHour);
export const previewUrl = (id: string) => `/s/preview/${id}`;

export function toView(row: SessionShareRow): SessionView {
  return {
    id: row.id,
    status: row.status,
    serviceName: row.serviceName,
    loginMethod: row.loginMethod,
    accessType: row.accessType,
    maxViewers: row.maxViewers,
    currentViewers: row.currentViewers,
    watermarkEnabled: row.watermarkEnabled,
    durationMinutes: row.durationMinutes,
    estimatedCostCents: row.estimatedCostCents,
    scheduledStart: row.scheduledStart,
    expiresAt: row.expiresAt,
    endedAt: row.endedAt,
    failureReason: row.failureReason,
    createdAt: row.createdAt,
  };
}

const isHttpUrl = (url: string | null): url is string => !!url && /^https?:\/\//i.test(url);

/**
 * The page the browser session logs in on: the entry's url, else the registry's login_url for the
 * entry's website, else https://<website>. It passes the same outbound guard as reset URLs (D12),
 * so a name that resolves to a private address is refused too, not only a literal one; a registry
 * login_url is checked the same way as one the user typed.
 */
export async function loginUrlOf(
  url: string | null,
  website: string | null,
  guard: GuardOptions,
  registryLoginUrl: string | null = null,
): Promise<string> {
  const raw = isHttpUrl(url) ? url : website ? (registryLoginUrl ?? `https://${website}`) : null;
  let parsed: URL | null = null;
  try {
    parsed = raw ? new URL(raw) : null;
  } catch {
    parsed = null;
  }
  if (!parsed || !/^https?:$/.test(parsed.protocol)) {
    throw new AppError(
      ErrorCode.UNPROCESSABLE,
      "The entry has no http or https login URL or website",
    );
  }
  return (await assertPublicUrl(parsed.toString(), "accountId", guard)).toString();
}

/**
 * The registry entry for the site (built-in, admin override, or both merged) supplies the login
 * page when the entry has only a website, and selectors tried before the defaults. A host the
 * registry does not know adds nothing: its generic defaults are guesses the built-in selectors
 * already cover, and a guessed /login path would be worse than the site's own front page.
 */
export async function loginTargetOf(
  db: Db,
  url: string | null,
  website: string | null,
  guard: GuardOptions,
): Promise<{ loginUrl: string; selectors: RegistrySelectors }> {
  const host = normalizeHost(isHttpUrl(url) ? url : website);
  const svc = host ? await resolveService(db, host) : null;
  const known = svc && svc.source !== "generic" ? svc : null;
  const loginUrl = await loginUrlOf(url, website, guard, known?.loginUrl ?? null);
  return {
    loginUrl,
    selectors: known
      ? { username: known.emailInputSelectors, submit: known.submitSelectors }
      : NO_REGISTRY_SELECTORS,
  };
}

export class SessionShareService {
  constructor(
    private readonly db: Db,
    private readonly env: Bindings,
    private readonly config: Config,
  ) {}

  async create(user: AuthUser, input: CreateSessionShareInput) {
    // Before anything is stored or sealed: a share could only fail once its room tried to launch.
    if (!hasBrowserRendering(this.env))
      throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, BROWSER_ABSENT);
    const entry = await findLive(this.db, user.id, input.accountId);
    if (!entry) throw notFound("Password entry");
    const { loginUrl, selectors } = await loginTargetOf(
      directoryDb(this.env),
      entry.url,
      entry.website,
      guardOptions(this.config),
    );
    const now = Date.now();
    const start = input.scheduledStart ? Date.parse(input.scheduledStart) : now;
    const id = randomId();
    const shareToken = randomToken(32);
    const accessType = input.accessType ?? (input.viewOnly === false ? "full" : "view_only");
    const row: SessionShareRow = {
      id,
      ownerId: user.id,
      accountId: entry.id,
      serviceName: entry.name,
      loginUrl,
      tokenHash: await sha256Hex(shareToken),
      // D10: sealed before anything else happens with them; the plaintext is not kept. A manual
      // share never types them, so it stores none (ERASED).
      sealedCredentials:
        input.loginMethod === "ai_agent"
          ? await seal(
              this.config.dataKeys,
              JSON.stringify({ u: input.decryptedUsername, p: input.decryptedPassword }),
              credentialsAad(id, user.id),
            )
          : repo.ERASED,
      accessType: input.viewOnly ? "view_only" : accessType,
      loginMethod: input.loginMethod,
      maxViewers: input.maxViewers,
      watermarkEnabled: input.watermarkEnabled,
      status: input.scheduledStart ? "scheduled" : "login_in_progress",
      currentViewers: 0,
      durationMinutes: input.durationMinutes,
      estimatedCostCents: costCents(
        input.durationMinutes,
        this.config.SESSION_BROWSER_CENTS_PER_HOUR,
      ),
      scheduledStart: input.scheduledStart ? new Date(start).toISOString() : null,
      expiresAt: new Date(start + input.durationMinutes * 60_000).toISOString(),
      endedAt: null,
      failureReason: null,
      createdAt: new Date(now).toISOString(),
      updatedAt: new Date(now).toISOString(),
    };
    const directory = directoryDb(this.env);
    await repo.link(directory, row);
    await repo.insert(this.db, row);
    await requireBrowserCapacity(
      this.env,
      user.id,
      { perUser: this.config.MAX_LIVE_BROWSERS_PER_USER, global: this.config.MAX_LIVE_BROWSERS },
      async () => {
        await repo.remove(this.db, user.id, id);
        await repo.unlink(directory, id);
      },
    );
    try {
      await roomFor(this.env.SESSION_SHARES, id).start({
        id,
        ownerId: user.id,
        ownerEmail: user.email ?? null,
        serviceName: row.serviceName,
        loginUrl,
        selectors,
        loginMethod: row.loginMethod,
        accessType: row.accessType,
        maxViewers: row.maxViewers,
        watermarkEnabled: row.watermarkEnabled,
        scheduledStart: row.scheduledStart,
        expiresAt: row.expiresAt,
      });
    } catch (e) {
      await repo.update(this.db, user.id, id, {
        status: "failed",
        failureReason: "browser session could not start",
        endedAt: new Date().toISOString(),
        sealedCredentials: repo.ERASED,
      });
      throw e;
    }
    return {
      id,
      shareToken,
      shareUrl: `/s/${shareToken}`,
      status: row.status,
      estimatedCostCents: row.estimatedCostCents,
      expiresAt: row.expiresAt,
      serviceName: row.serviceName,
      loginMethod: row.loginMethod,
    };
  }

  async get(user: AuthUser, id: string) {
    const row = await repo.findOwned(this.db, user.id, id);
    if (!row) throw notFound("Session share");
    return row;
  }

  async patch(user: AuthUser, id: string, input: PatchSessionShareInput) {
    const row = await this.get(user, id);
    if (TERMINAL.includes(row.status)) throw conflict(`The session has ended (${row.status})`);
    if (input.action === "revoke") {
      await roomFor(this.env.SESSION_SHARES, id).end("revoked");
      return toView((await this.get(user, id))!);
    }
    let control: Control;
    const set: Partial<SessionShareRow> = {};
    if (input.action === "pause") {
      if (row.status !== "active") throw conflict("Only an active session can be paused");
      control = { action: "pause" };
    } else if (input.action === "resume") {
      if (row.status !== "paused") throw conflict("Only a paused session can be resumed");
      control = { action: "resume" };
    } else if (input.action === "extend") {
      const total = row.durationMinutes + input.minutes;
      if (total > MAX_TOTAL_MINUTES)
        throw validationError(`A session lasts at most ${MAX_TOTAL_MINUTES} minutes`, [
          { field: "minutes", message: "too long in total" },
        ]);
      set.durationMinutes = total;
      set.expiresAt = new Date(Date.parse(row.expiresAt) + input.minutes * 60_000).toISOString();
      set.estimatedCostCents = costCents(total, this.config.SESSION_BROWSER_CENTS_PER_HOUR);
      control = { action: "extend", expiresAt: set.expiresAt };
    } else {
      set.watermarkEnabled = input.watermarkEnabled;
      control = { action: "watermark", enabled: input.watermarkEnabled };
    }
    try {
      await roomFor(this.env.SESSION_SHARES, id).control(control);
    } catch {
      throw conflict("The session has ended");
    }
    if (Object.keys(set).length) await repo.update(this.db, user.id, id, set);
    return toView((await this.get(user, id))!);
  }

  async remove(user: AuthUser, id: string) {
    await this.get(user, id);
    await roomFor(this.env.SESSION_SHARES, id).end("revoked");
  }

  /**
   * A one-time WebSocket ticket: for the owner by id, for a viewer by share token. `return await`
   * because ticket() may reject at once, and workerd reports a rejection not yet awaited as unhandled.
   */
  async ticketForOwner(user: AuthUser, id: string) {
    const row = await this.get(user, id);
    return await this.ticket(row, "owner", user.id);
  }

  async ticketForViewer(user: AuthUser, token: string) {
    // The viewer is not the owner: the directory says whose shard holds the share.
    const tokenHash = await sha256Hex(token);
    const ownerId = await repo.ownerOf(directoryDb(this.env), { tokenHash });
    const row = ownerId
      ? await repo.findByTokenHash(dbFor(this.env, ownerId), tokenHash)
      : undefined;
    if (!row) throw notFound("Shared session");
    return await this.ticket(row, row.ownerId === user.id ? "owner" : "viewer", user.id);
  }

  private async ticket(row: SessionShareRow, role: "owner" | "viewer", userId: string) {
    if (TERMINAL.includes(row.status) || Date.parse(row.expiresAt) <= Date.now())
      throw new AppError(ErrorCode.GONE, "The shared session has ended");
    if (role === "viewer" && row.currentViewers >= row.maxViewers)
      throw conflict("The session has its maximum number of viewers");
    let ticket: string;
    try {
      ticket = await roomFor(this.env.SESSION_SHARES, row.id).issueTicket(role, userId);
    } catch {
      throw new AppError(ErrorCode.GONE, "The shared session has ended");
    }
    return {
      ticket,
      wsUrl: `/api/session-shares/${row.id}/live?ticket=${ticket}`,
      accessType: role === "owner" ? "full" : row.accessType,
      expiresIn: 60,
    };
  }
}
