/**
 * Typed client for the API endpoints the web client and the browser extension use. In the web app,
 * same-origin requests with `credentials: "same-origin"`: the identity travels in the access_token
 * cookie (docs/decisions/client.md, "Client: the web client"), so pages and the service worker never hold the token.
 * The extension is another origin: it passes `bearer`, which reads the same cookie through the
 * cookies API on every call (docs/decisions/extension.md, "Extension: the browser extension"), and sends no cookies of its own.
 * Every call goes through ENDPOINTS. The wire types are the server's own (core/api/wire.gen.ts,
 * generated from the routes' schemas): a changed response fails this file's compile, and
 * client/test/wire-contract.ts checks the ENDPOINTS tables against the same types.
 */
import type { MutationData } from "../store";
import type { components, paths, WireBody, WireResponse } from "./wire.gen";
import {
  BOOKMARK_HEADER,
  formatBookmarks,
  mergeBookmarks,
  parseBookmarks,
} from "../../src/kernel/bookmarks";
import { Revalidation } from "./revalidate";

/** The account key wrap as the server keeps it (core/crypto AccountKeyWrap has the same fields). */
export type AccountKeyWrap = {
  key_version: number;
  revision: number;
  kdf_iterations: number;
  wrapped_key: string;
};

export const ENDPOINTS = {
  csrfToken: { method: "GET", path: "/api/auth/csrf-token", reads: ["csrfToken"] },
  session: { method: "GET", path: "/api/auth/session", reads: ["user", "twoFactorRequired"] },
  listPasswords: {
    method: "GET",
    path: "/api/passwords",
    query: ["page", "limit"],
    reads: ["data", "pagination"],
  },
  match: {
    method: "GET",
    path: "/api/passwords/match",
    query: ["url", "host_hashes"],
    reads: ["matches"],
  },
  reveal: { method: "POST", path: "/api/passwords/{id}/reveal", reads: ["envelope"] },
  syncPull: {
    method: "GET",
    path: "/api/passwords/sync",
    query: ["since", "resume"],
    reads: ["changes", "serverTimestamp", "fullSyncRequired"],
  },
  syncPush: {
    method: "POST",
    path: "/api/passwords/sync",
    body: ["mutations"],
    reads: ["results", "serverTimestamp"],
  },
  sharingKey: {
    method: "GET",
    path: "/api/sharing/public-key",
    query: ["email"],
    reads: ["publicKey"],
  },
  totpGet: {
    method: "GET",
    path: "/api/passwords/{id}/totp",
    reads: ["hasTotp", "secretEncrypted", "algorithm", "digits", "period"],
  },
  totpSet: {
    method: "POST",
    path: "/api/passwords/{id}/totp",
    body: ["secretEncrypted", "algorithm", "digits", "period"],
    reads: ["success"],
  },
  totpDelete: { method: "DELETE", path: "/api/passwords/{id}/totp", reads: ["success"] },
  twofaStatus: {
    method: "GET",
    path: "/api/2fa/status",
    reads: ["enrolled", "method", "enrolledAt", "pending", "recoveryCodesRemaining"],
  },
  twofaEnroll: {
    method: "POST",
    path: "/api/2fa/enroll",
    reads: ["qrCodeUri", "secret", "recoveryCodes"],
  },
  twofaVerify: { method: "POST", path: "/api/2fa/verify", body: ["code"], reads: ["verified"] },
  twofaDisable: { method: "POST", path: "/api/2fa/disable", body: ["code"], reads: ["success"] },
  devices: {
    method: "GET",
    path: "/api/devices",
    query: ["limit", "cursor"],
    reads: ["devices", "next_cursor"],
  },
  deviceRegister: {
    method: "POST",
    path: "/api/devices",
    body: ["fingerprint", "deviceName", "deviceType", "os", "browser", "publicKey"],
    reads: ["device"],
  },
  deviceUpdate: {
    method: "PATCH",
    path: "/api/devices/{id}",
    body: ["deviceName", "trustLevel"],
    reads: ["device"],
  },
  deviceRevoke: { method: "DELETE", path: "/api/devices/{id}", reads: ["success"] },
  notifications: {
    method: "GET",
    path: "/api/notifications",
    query: ["limit", "unread_only"],
    reads: ["notifications", "unread_count"],
  },
  notificationRead: {
    method: "PATCH",
    path: "/api/notifications/{id}",
    body: ["is_read"],
    reads: ["notification"],
  },
  notificationsReadAll: { method: "POST", path: "/api/notifications/read", reads: ["updated"] },
  notificationsClear: {
    method: "DELETE",
    path: "/api/notifications",
    reads: ["success", "deleted"],
  },
  pushKey: { method: "GET", path: "/api/push/vapid-public-key", reads: ["enabled", "public_key"] },
  pushSubscribe: {
    method: "POST",
    path: "/api/push/subscriptions",
    body: ["endpoint", "expirationTime", "keys"],
    reads: ["subscription"],
  },
  pushUnsubscribe: { method: "DELETE", path: "/api/push/subscriptions/{id}", reads: ["success"] },
  attachments: {
    method: "GET",
    path: "/api/vault/attachments",
    query: ["parent_id", "parent_type", "limit", "cursor"],
    reads: ["attachments", "usage", "next_cursor"],
  },
  attachmentUpload: {
    method: "POST",
    path: "/api/vault/attachments",
    body: [
      "parent_id",
      "parent_type",
      "encrypted_content",
      "wrapped_file_key",
      "encrypted_filename",
      "encrypted_mime_type",
    ],
    reads: ["attachment"],
  },
  attachment: { method: "GET", path: "/api/vault/attachments/{id}", reads: ["attachment"] },
  attachmentDelete: { method: "DELETE", path: "/api/vault/attachments/{id}", reads: ["success"] },
  importPasswords: {
    method: "POST",
    path: "/api/passwords/import",
    body: ["entries", "provider"],
    reads: ["success", "imported", "errors"],
  },
  exportPasswords: {
    method: "GET",
    path: "/api/passwords/export",
    reads: ["format", "version", "entries", "count"],
  },
  exportPlain: { method: "POST", path: "/api/passwords/export/plain", reads: ["success"] },
  accountKey: {
    method: "GET",
    path: "/api/account-key",
    reads: ["account_key"],
  },
  accountKeyPut: {
    method: "PUT",
    path: "/api/account-key",
    body: ["key_version", "revision", "kdf_iterations", "wrapped_key"],
    reads: ["account_key"],
  },
} as const;

export type EndpointName = keyof typeof ENDPOINTS;

export type ErrorBody = components["schemas"]["Error"];

export type SyncPullResponse = WireResponse<"/api/passwords/sync", "get">;
export type SyncChange = SyncPullResponse["changes"][number];
export type SyncEntry = Extract<SyncChange, { _deleted: false }>;
export type Tombstone = Extract<SyncChange, { _deleted: true }>;

export type WireMutation =
  | { action: "create" | "update"; id: string; data: MutationData; clientUpdatedAt: string }
  | { action: "delete"; id: string; clientUpdatedAt: string };

export type SyncPushResponse = WireResponse<"/api/passwords/sync", "post">;
export type MutationResult = SyncPushResponse["results"][number];

export type RevealResponse = WireResponse<"/api/passwords/{id}/reveal", "post">;

export type SharingKeyResponse = WireResponse<"/api/sharing/public-key", "get">;

export type MatchResponse = WireResponse<"/api/passwords/match", "get">;
export type MatchedEntry = MatchResponse["matches"][number];

export type ListPasswordsResponse = WireResponse<"/api/passwords", "get">;
export type ListedEntry = ListPasswordsResponse["data"][number];

/** The API answered with the standard error body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
    /** A refusal's Retry-After (429), in seconds: when asking again may be answered. */
    readonly retryAfterSeconds?: number,
  ) {
    super(body.error);
    this.name = "ApiError";
  }
}

/**
 * A read refused by a rate limit is asked again once its Retry-After has passed, when that is at
 * most this long: the person sees the section a little later instead of an error. Longer waits,
 * and writes (the person's action, which they should know did not happen), are the caller's.
 */
export const QUIET_RETRY_MAX_SECONDS = 20;
const QUIET_RETRIES = 2;

/** Seconds from a Retry-After header (delta seconds or an HTTP date); undefined when absent or unreadable. */
export function retryAfterOf(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** What a person is told of a refusal by a rate limit, wherever it shows: never its code. */
export const BUSY_SENTENCE = "The vault is busy for a moment. Try again in a minute.";

/**
 * Asked when the server wants more proof of the person before it answers: an account 2FA code for
 * this sign-in (TWO_FACTOR_REQUIRED, DECISIONS D20) or a recent sign-in (STEP_UP_REQUIRED, D3).
 * Resolves true once the person has given it: the call is then made again, so the action that met
 * the refusal finishes. Pages set one (client/src/shell/confirm-dialog.ts); without one the error stands.
 */
export type ChallengeHandler = (err: ApiError) => Promise<boolean>;
let challengeHandler: ChallengeHandler | null = null;
export function setChallengeHandler(fn: ChallengeHandler | null): void {
  challengeHandler = fn;
}
export const CHALLENGE_CODES: readonly string[] = ["TWO_FACTOR_REQUIRED", "STEP_UP_REQUIRED"];

/** No network: fetch failed, or the service worker answered 503 {error: "offline"}. */
export class OfflineError extends Error {
  constructor() {
    super("offline");
    this.name = "OfflineError";
  }
}

export type EndpointDef = {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  query?: readonly string[];
  body?: readonly string[];
  reads: readonly string[];
};
type Method = "get" | "post" | "put" | "patch" | "delete";
/** An endpoint of one of the tables as the schemas' path and method, or never for one they lack. */
type RouteOf<E extends EndpointDef> = E["path"] extends infer P extends keyof paths
  ? Lowercase<E["method"]> extends infer M extends Method & keyof paths[P]
    ? [P, M]
    : never
  : never;
/**
 * What an endpoint of one of the tables answers, by the server's own types: `request(ep)` and
 * `requestAll(ep)` give it without a hand-written shape, so a changed response fails the compile
 * where its fields are read. An endpoint the schemas do not describe answers `unknown`.
 */
export type EndpointResponse<E extends EndpointDef> = [RouteOf<E>] extends [never]
  ? unknown
  : WireResponse<RouteOf<E>[0], RouteOf<E>[1]>;
/** The body an endpoint takes (never for one that takes none), checked where the call is made. */
export type EndpointBody<E extends EndpointDef> = [RouteOf<E>] extends [never]
  ? unknown
  : WireBody<RouteOf<E>[0], RouteOf<E>[1]>;
/** `T` when the caller names it (a route outside the schemas), else what the endpoint answers. */
type Answer<T, E extends EndpointDef> = [T] extends [never] ? EndpointResponse<E> : T;
/** A GET made ready on this thread and sent from another (the pull worker). */
export type PreparedGet = {
  url: string;
  headers: Record<string, string>;
  credentials: RequestCredentials;
};
/**
 * `quiet`: a call the page makes on its own (registering this browser at start), whose refusal is
 * handled by its caller instead of being put to the person as "confirm it's you".
 */
type CallOptions<B = unknown> = {
  params?: Record<string, string>;
  query?: Record<string, string | undefined>;
  body?: B;
  headers?: Record<string, string>;
  quiet?: boolean;
  /** The caller backs off from a 429 itself (the sync engine): no waiting here. */
  noRetry?: boolean;
};

const matchQuery = (url: string, hostHashes: string[]) => ({
  url,
  host_hashes: hostHashes.length ? hostHashes.join(",") : undefined,
});

function urlFor(
  template: string,
  params: Record<string, string> = {},
  query: Record<string, string | undefined> = {},
): string {
  const path = template.replace(/\{(\w+)\}/g, (_, k: string) =>
    encodeURIComponent(params[k] ?? ""),
  );
  const qs = Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined);
  return qs.length ? `${path}?${new URLSearchParams(qs)}` : path;
}

/**
 * Headers every call carries, set once per page: `x-device-fingerprint` names this browser's
 * registered device (DECISIONS D11), set by core/device/device.ts, the one module that knows how.
 */
const defaultHeaders: Record<string, string> = {};
export function setDefaultHeader(name: string, value: string | null): void {
  if (value === null) delete defaultHeaders[name];
  else defaultHeaders[name] = value;
}

/**
 * The device-possession hook (RFC 9449 DPoP): set by device.ts once this browser's key is ready,
 * it signs a proof for each request, sent as the `dpop` header. Null: no proof.
 */
export type ProofSigner = (req: {
  method: string;
  url: string;
  accessToken: string | null;
}) => Promise<string | null>;
let proofSigner: ProofSigner | null = null;
export function setProofSigner(signer: ProofSigner | null): void {
  proofSigner = signer;
}
async function withProof(
  headers: Record<string, string>,
  method: string,
  url: string,
  accessToken: string | null,
): Promise<void> {
  const proof =
    proofSigner &&
    (await proofSigner({ method, url: new URL(url, globalThis.location?.href).href, accessToken }));
  if (proof) headers.dpop = proof;
}

export type TotpConfig = WireResponse<"/api/passwords/{id}/totp", "get">;
export type CipherPart = NonNullable<TotpConfig["secretEncrypted"]>;
export type TwoFactorStatus = WireResponse<"/api/2fa/status", "get">;
/** `key_bound`: registered with a device key, it counts as this device only with a proof by that key. */
export type Device = WireResponse<"/api/devices", "get">["devices"][number];
export type TrustLevel = Device["trust_level"];
export type DeviceRegistration = WireBody<"/api/devices", "post">;
export type NotificationList = WireResponse<"/api/notifications", "get">;
export type AppNotification = NotificationList["notifications"][number];
export type AttachmentList = WireResponse<"/api/vault/attachments", "get">;
export type AttachmentMeta = AttachmentList["attachments"][number];
export type ParentType = AttachmentMeta["parent_type"];
export type AttachmentUpload = WireBody<"/api/vault/attachments", "post">;
/** `id`: chosen by the client, the envelope is bound to it (the import keeps it). */
export type ImportEntry = WireBody<"/api/passwords/import", "post">["entries"][number];
export type ImportProvider = WireBody<"/api/passwords/import", "post">["provider"];
export type ImportResponse = WireResponse<"/api/passwords/import", "post">;
export type PushSubscriptionBody = WireBody<"/api/push/subscriptions", "post">;
export type ExportDocument = WireResponse<"/api/passwords/export", "get">;

export class ApiClient {
  private csrf: string | null = null;
  /** The D1 bookmarks last seen (src/kernel/bookmarks.ts), sent with every request. */
  private bookmarks = new Map<string, string>();
  /** Answers kept by their ETag, asked again with If-None-Match (revalidate.ts). */
  private readonly revalidation = new Revalidation();

  /**
   * `origin` is "" in pages and the worker (same origin); tests and the extension pass an absolute
   * base. `bearer` gives the access token for an Authorization header (the extension); without it
   * the cookie travels.
   */
  constructor(
    private readonly origin = "",
    private readonly bearer?: () => Promise<string | null>,
  ) {}

  /**
   * The bookmarks as a header value, for keeping beside the sync cursor (docs/decisions/scale.md, "Scale: shards, a directory, many databases"): whichever
   * replica answers this device's next request has seen at least what this device last saw.
   */
  bookmarkHeader(): string {
    return formatBookmarks(this.bookmarks);
  }

  /** Starts from stored bookmarks; later ones already held win. */
  useBookmarks(header: string | null | undefined) {
    this.bookmarks = mergeBookmarks(parseBookmarks(header), this.bookmarks);
  }

  private call<N extends EndpointName>(
    name: N,
    opts: CallOptions<EndpointBody<(typeof ENDPOINTS)[N]>> = {},
  ): Promise<EndpointResponse<(typeof ENDPOINTS)[N]>> {
    // Indexed by a generic name the answer stays unresolved until the caller's name is known.
    return this.request(ENDPOINTS[name], opts) as Promise<EndpointResponse<(typeof ENDPOINTS)[N]>>;
  }

  /** Any endpoint described like ENDPOINTS' entries (sections keep their own tables, also checked against OpenAPI). */
  async request<T = never, E extends EndpointDef = EndpointDef>(
    ep: E,
    opts: CallOptions<EndpointBody<E>> = {},
  ): Promise<Answer<T, E>> {
    const res = await this.fetchOk(ep, opts, "application/json");
    return (await res.json().catch(() => null)) as Answer<T, E>;
  }

  /**
   * Every page of a cursor-paginated list (limit and cursor in, next_cursor out; docs/decisions/platform.md,
   * "Cursor pagination"): array fields of the pages are joined in order, the rest is the last page's.
   */
  async requestAll<T extends object = never, E extends EndpointDef = EndpointDef>(
    ep: E,
    opts: CallOptions<EndpointBody<E>> = {},
  ): Promise<Answer<T, E>> {
    let out: Record<string, unknown> | null = null;
    let cursor: string | undefined;
    for (;;) {
      const page = await this.request<Record<string, unknown> & { next_cursor?: string | null }>(
        ep,
        { ...opts, query: { ...opts.query, limit: "100", cursor } },
      );
      if (!out) out = { ...page };
      else
        for (const [k, v] of Object.entries(page))
          out[k] = Array.isArray(v) && Array.isArray(out[k]) ? [...(out[k] as unknown[]), ...v] : v;
      if (!page.next_cursor) return out as Answer<T, E>;
      cursor = page.next_cursor;
    }
  }

  /** An endpoint answered with text/plain (the breach range): its body as text. */
  async text(ep: EndpointDef, opts: CallOptions = {}): Promise<string> {
    return (await this.fetchOk(ep, opts, "text/plain")).text();
  }

  /** An endpoint answered with text/event-stream: its body, read as it arrives (automation/sse.ts). */
  async stream(
    ep: EndpointDef,
    opts: CallOptions & { signal?: AbortSignal } = {},
  ): Promise<ReadableStream<Uint8Array>> {
    const res = await this.fetchOk(ep, opts, "text/event-stream");
    if (!res.body)
      throw new ApiError(res.status, {
        error: "empty stream",
        code: "INTERNAL_ERROR",
        status: res.status,
      });
    return res.body;
  }

  /** A call's URL and headers: the session, this device's proof and the bookmarks it carries. */
  private async prepare(
    ep: EndpointDef,
    opts: CallOptions,
    accept: string,
  ): Promise<{ url: string; headers: Record<string, string> }> {
    const headers: Record<string, string> = { ...defaultHeaders, ...opts.headers, accept };
    const token = this.bearer ? await this.bearer() : null;
    if (token) headers.authorization = `Bearer ${token}`;
    if (this.bookmarks.size) headers[BOOKMARK_HEADER] = formatBookmarks(this.bookmarks);
    if (ep.method !== "GET") {
      headers["x-csrf-token"] = await this.csrfToken();
      if (opts.body !== undefined) headers["content-type"] = "application/json";
    }
    const url = this.urlOf(ep, opts);
    await withProof(headers, ep.method, url, token);
    return { url, headers };
  }

  /**
   * The pull's request made ready for the pull worker to send (pull-worker-client.ts), which then
   * reads the answer on its own thread. What comes back is noted with `noteAnswer`; an answer the
   * worker does not take (a refusal, no stream) is asked again through `syncPages`, whose errors
   * are this client's.
   */
  async syncPagesRequest(
    since: string | undefined,
    resume: string | undefined,
  ): Promise<PreparedGet> {
    const { url, headers } = await this.prepare(
      ENDPOINTS.syncPull,
      { query: { since, resume } },
      "application/x-ndjson",
    );
    return {
      url: new URL(url, globalThis.location?.href).href,
      headers,
      credentials: this.bearer ? "omit" : "same-origin",
    };
  }

  /** Takes the bookmarks of an answer fetched on another thread. */
  noteAnswer(bookmarkHeader: string | null) {
    this.bookmarks = mergeBookmarks(this.bookmarks, parseBookmarks(bookmarkHeader));
  }

  /** A successful response, or the error as ApiError / OfflineError. */
  private async fetchOk(
    ep: EndpointDef,
    opts: CallOptions & { signal?: AbortSignal },
    accept: string,
    retried = false,
    waited = 0,
  ): Promise<Response> {
    const { method } = ep;
    const { url, headers } = await this.prepare(ep, opts, accept);
    const etag = method === "GET" ? this.revalidation.condition(url) : undefined;
    if (etag) headers["if-none-match"] = etag;
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers,
        credentials: this.bearer ? "omit" : "same-origin",
        cache: "no-store",
        signal: opts.signal,
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      });
    } catch (e) {
      if (opts.signal?.aborted) throw e;
      throw new OfflineError();
    }
    this.bookmarks = mergeBookmarks(
      this.bookmarks,
      parseBookmarks(res.headers.get(BOOKMARK_HEADER)),
    );
    if (res.status === 304 && etag) {
      const kept = this.revalidation.replay(url, res);
      if (kept) return kept;
    }
    if (res.ok) return method === "GET" ? this.revalidation.keep(url, res) : res;
    const err = ((await res.json().catch(() => null)) ?? {
      error: res.statusText,
      code: "INTERNAL_ERROR",
      status: res.status,
    }) as ErrorBody;
    if (res.status === 503 && err.error === "offline") throw new OfflineError();
    const retryAfter = retryAfterOf(res.headers.get("retry-after"));
    if (
      res.status === 429 &&
      method === "GET" &&
      !opts.noRetry &&
      waited < QUIET_RETRIES &&
      retryAfter !== undefined &&
      retryAfter <= QUIET_RETRY_MAX_SECONDS &&
      !opts.signal?.aborted
    ) {
      await new Promise((r) => setTimeout(r, Math.max(1, retryAfter) * 1000));
      return this.fetchOk(ep, opts, accept, retried, waited + 1);
    }
    // The token outlives a page but not 12 hours, nor a change of user: fetch a fresh one once.
    if (res.status === 403 && /csrf/i.test(err.error) && !retried) {
      this.csrf = null;
      return this.fetchOk(ep, opts, accept, true);
    }
    const failure = new ApiError(
      res.status,
      res.status === 429 ? { ...err, error: BUSY_SENTENCE } : err,
      retryAfter,
    );
    if (
      res.status === 401 &&
      !opts.quiet &&
      CHALLENGE_CODES.includes(err.code) &&
      challengeHandler &&
      (await challengeHandler(failure))
    ) {
      return this.fetchOk(ep, opts, accept, retried);
    }
    throw failure;
  }

  private urlOf(ep: EndpointDef, opts: CallOptions): string {
    return this.origin + urlFor(ep.path, opts.params, opts.query);
  }

  async csrfToken(): Promise<string> {
    this.csrf ??= (await this.call("csrfToken")).csrfToken;
    return this.csrf;
  }

  /** Who the HTTP-only auth cookie names (401 without one). */
  session(): Promise<WireResponse<"/api/auth/session", "get">> {
    return this.call("session");
  }

  listPasswords(page = 1, limit = 20): Promise<ListPasswordsResponse> {
    return this.call("listPasswords", { query: { page: String(page), limit: String(limit) } });
  }

  /** `hostHashes`: the page's hashed hosts (host-hashes.ts), so entries match by their extra addresses too. */
  match(url: string, hostHashes: string[] = []): Promise<MatchResponse> {
    return this.call("match", { query: matchQuery(url, hostHashes) });
  }

  /**
   * For an answer the caller cannot trust (an entry that does not open in its place): a 304 would
   * confirm the body kept, so the next lookup of this URL asks unconditionally.
   */
  forgetMatch(url: string, hostHashes: string[] = []) {
    this.revalidation.forget(this.urlOf(ENDPOINTS.match, { query: matchQuery(url, hostHashes) }));
  }

  reveal(id: string): Promise<RevealResponse> {
    return this.call("reveal", { params: { id } });
  }

  syncPull(since: string | undefined): Promise<SyncPullResponse> {
    return this.call("syncPull", { query: { since } });
  }

  /**
   * The pull asked for one JSON text per line (docs/decisions/sync.md, "Sync: a pull read page by page,
   * resumed where it was cut"), to be read as it arrives; `resume` goes on with a pull cut off
   * part-way. The answer as it came: an intermediary that answers with the one JSON object instead
   * is told apart by its content type (sync-engine.ts reads both).
   */
  syncPages(
    since: string | undefined,
    resume: string | undefined,
    signal?: AbortSignal,
  ): Promise<Response> {
    return this.fetchOk(
      ENDPOINTS.syncPull,
      { query: { since, resume }, signal, noRetry: true },
      "application/x-ndjson",
    );
  }

  /** The caller's sharing public key, or with `email` a contact's: as the server says (see contact-keys.ts). */
  sharingKey(email?: string): Promise<SharingKeyResponse> {
    return this.call("sharingKey", { query: { email } });
  }

  syncPush(mutations: WireMutation[]): Promise<SyncPushResponse> {
    return this.call("syncPush", { body: { mutations }, noRetry: true });
  }

  totp(id: string): Promise<TotpConfig> {
    return this.call("totpGet", { params: { id } });
  }

  setTotp(
    id: string,
    body: WireBody<"/api/passwords/{id}/totp", "post">,
  ): Promise<WireResponse<"/api/passwords/{id}/totp", "post">> {
    return this.call("totpSet", { params: { id }, body });
  }

  deleteTotp(id: string): Promise<WireResponse<"/api/passwords/{id}/totp", "delete">> {
    return this.call("totpDelete", { params: { id } });
  }

  twoFactorStatus(): Promise<TwoFactorStatus> {
    return this.call("twofaStatus");
  }

  twoFactorEnroll(): Promise<WireResponse<"/api/2fa/enroll", "post">> {
    return this.call("twofaEnroll");
  }

  twoFactorVerify(code: string): Promise<WireResponse<"/api/2fa/verify", "post">> {
    return this.call("twofaVerify", { body: { code } });
  }

  twoFactorDisable(code: string): Promise<WireResponse<"/api/2fa/disable", "post">> {
    return this.call("twofaDisable", { body: { code } });
  }

  /** The account key's wrap (core/crypto/account-key.ts), or null before the account has one. */
  async accountKey(): Promise<AccountKeyWrap | null> {
    return (await this.call("accountKey", { quiet: true })).account_key;
  }

  /** The next wrap, or "conflict" when the server holds another revision (another device wrote first). */
  async putAccountKey(wrap: AccountKeyWrap): Promise<AccountKeyWrap | "conflict"> {
    try {
      const { account_key } = await this.call("accountKeyPut", { body: wrap, quiet: true });
      // The server answers what it stored: never null after a write.
      if (!account_key) throw new Error("The server stored no account key");
      return account_key;
    } catch (e) {
      if (e instanceof ApiError && e.status === 409) return "conflict";
      throw e;
    }
  }

  devices(): Promise<WireResponse<"/api/devices", "get">> {
    return this.requestAll(ENDPOINTS.devices);
  }

  registerDevice(body: DeviceRegistration): Promise<WireResponse<"/api/devices", "post">> {
    // Made at start, not by the person: a stale sign-in leaves the browser unregistered (the
    // Devices page says why) instead of opening "confirm it's you" over the vault.
    return this.call("deviceRegister", { body, quiet: true });
  }

  updateDevice(
    id: string,
    body: WireBody<"/api/devices/{id}", "patch">,
  ): Promise<WireResponse<"/api/devices/{id}", "patch">> {
    return this.call("deviceUpdate", { params: { id }, body });
  }

  revokeDevice(id: string): Promise<WireResponse<"/api/devices/{id}", "delete">> {
    return this.call("deviceRevoke", { params: { id } });
  }

  notifications(limit = 50): Promise<NotificationList> {
    return this.call("notifications", { query: { limit: String(limit), unread_only: "false" } });
  }

  markNotificationRead(id: string): Promise<WireResponse<"/api/notifications/{id}", "patch">> {
    return this.call("notificationRead", { params: { id }, body: { is_read: true } });
  }

  markAllNotificationsRead(): Promise<WireResponse<"/api/notifications/read", "post">> {
    return this.call("notificationsReadAll");
  }

  clearNotifications(): Promise<WireResponse<"/api/notifications", "delete">> {
    return this.call("notificationsClear");
  }

  pushKey(): Promise<WireResponse<"/api/push/vapid-public-key", "get">> {
    return this.call("pushKey");
  }

  pushSubscribe(
    subscription: PushSubscriptionBody,
  ): Promise<WireResponse<"/api/push/subscriptions", "post">> {
    return this.call("pushSubscribe", { body: subscription });
  }

  pushUnsubscribe(id: string): Promise<WireResponse<"/api/push/subscriptions/{id}", "delete">> {
    return this.call("pushUnsubscribe", { params: { id } });
  }

  attachments(parentId: string, parentType: ParentType = "password"): Promise<AttachmentList> {
    return this.requestAll(ENDPOINTS.attachments, {
      query: { parent_id: parentId, parent_type: parentType },
    });
  }

  attachment(id: string): Promise<WireResponse<"/api/vault/attachments/{id}", "get">> {
    return this.call("attachment", { params: { id } });
  }

  deleteAttachment(id: string): Promise<WireResponse<"/api/vault/attachments/{id}", "delete">> {
    return this.call("attachmentDelete", { params: { id } });
  }

  /** XMLHttpRequest, not fetch: only it reports upload progress (`onProgress(sent, total)`). */
  async uploadAttachment(
    body: AttachmentUpload,
    onProgress: (sent: number, total: number) => void,
  ): Promise<WireResponse<"/api/vault/attachments", "post">> {
    const csrf = await this.csrfToken();
    const { method, path } = ENDPOINTS.attachmentUpload;
    const headers: Record<string, string> = {
      ...defaultHeaders,
      accept: "application/json",
      "content-type": "application/json",
      "x-csrf-token": csrf,
    };
    await withProof(headers, method, this.origin + path, null);
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open(method, this.origin + path);
      for (const [k, v] of Object.entries(headers)) xhr.setRequestHeader(k, v);
      xhr.withCredentials = true;
      xhr.upload.onprogress = (ev) => onProgress(ev.loaded, ev.total);
      xhr.onerror = () => reject(new OfflineError());
      xhr.onload = () => {
        let parsed: unknown = null;
        try {
          parsed = JSON.parse(xhr.responseText);
        } catch {
          parsed = null;
        }
        if (xhr.status >= 200 && xhr.status < 300)
          resolve(parsed as WireResponse<"/api/vault/attachments", "post">);
        else
          reject(
            new ApiError(
              xhr.status,
              (parsed ?? {
                error: xhr.statusText,
                code: "INTERNAL_ERROR",
                status: xhr.status,
              }) as ErrorBody,
            ),
          );
      };
      xhr.send(JSON.stringify(body));
    });
  }

  /** One batch; the Idempotency-Key makes a retry of the same batch safe (remembered 1 hour). */
  importPasswords(
    entries: ImportEntry[],
    provider: ImportProvider,
    idempotencyKey: string,
  ): Promise<ImportResponse> {
    return this.call("importPasswords", {
      body: { entries, provider },
      headers: { "idempotency-key": idempotencyKey },
    });
  }

  exportPasswords(): Promise<ExportDocument> {
    return this.call("exportPasswords");
  }

  /** The server's leave for a plaintext export (a recent sign-in on any device), recorded in the audit log. */
  exportPlain(): Promise<{ success: true }> {
    return this.call("exportPlain");
  }
}
