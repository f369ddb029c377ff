/**
 * Typed client for the API endpoints the web client uses. Same-origin requests with
 * `credentials: "same-origin"`: the identity travels in the access_token cookie (docs/decisions.md,
 * "Issue 10"), so pages and the service worker call the API alike and never hold the token.
 * Every call goes through ENDPOINTS, which a test checks against /api/openapi.json.
 */
import type { MutationData } from "./db";

export const ENDPOINTS = {
  csrfToken: { method: "GET", path: "/api/auth/csrf-token", reads: ["csrfToken"] },
  session: { method: "GET", path: "/api/auth/session", reads: ["user"] },
  listPasswords: { method: "GET", path: "/api/passwords", query: ["page", "limit"], reads: ["data", "pagination"] },
  reveal: { method: "POST", path: "/api/passwords/{id}/reveal", reads: ["envelope"] },
  syncPull: { method: "GET", path: "/api/passwords/sync", query: ["since"], reads: ["changes", "serverTimestamp", "fullSyncRequired"] },
  syncPush: { method: "POST", path: "/api/passwords/sync", body: ["mutations"], reads: ["results", "serverTimestamp"] },
} as const;

export type EndpointName = keyof typeof ENDPOINTS;

export type ErrorBody = { error: string; code: string; status: number; details?: { field: string; message: string }[] };

export type SyncEntry = {
  id: string;
  _deleted: false;
  name: string;
  website: string | null;
  url: string | null;
  username: string | null;
  tags: string[];
  encryption_version: number;
  wrapped_item_key: string | null;
  encrypted_data: string | null;
  has_totp: boolean;
  has_passkey: boolean;
  created_at: string;
  updated_at: string;
};
export type Tombstone = { id: string; _deleted: true; deleted_at: string };
export type SyncChange = SyncEntry | Tombstone;

export type SyncPullResponse = { changes: SyncChange[]; serverTimestamp: string; fullSyncRequired: boolean };

export type WireMutation =
  | { action: "create" | "update"; id: string; data: MutationData; clientUpdatedAt: string }
  | { action: "delete"; id: string; clientUpdatedAt: string };

export type MutationResult = {
  id: string;
  status: "applied" | "conflict_server_wins" | "failed";
  serverEntry?: SyncChange;
  error?: string;
  code?: string;
};
export type SyncPushResponse = { results: MutationResult[]; serverTimestamp: string };

export type RevealResponse = { envelope: { wrappedItemKey: string; encryptedData: string; version: number } };

export type ListedEntry = { id: string; name: string; encryption_version: number; wrapped_item_key: string | null; encrypted_data: string | null };
export type ListPasswordsResponse = { data: ListedEntry[]; pagination: { page: number; limit: number; total: number } };

/** The API answered with the standard error body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.error);
    this.name = "ApiError";
  }
}

/** No network: fetch failed, or the service worker answered 503 {error: "offline"}. */
export class OfflineError extends Error {
  constructor() {
    super("offline");
    this.name = "OfflineError";
  }
}

export type EndpointDef = { method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE"; path: string; query?: readonly string[]; body?: readonly string[]; reads: readonly string[] };
type CallOptions = { params?: Record<string, string>; query?: Record<string, string | undefined>; body?: unknown };

function urlFor(template: string, params: Record<string, string> = {}, query: Record<string, string | undefined> = {}): string {
  const path = template.replace(/\{(\w+)\}/g, (_, k: string) => encodeURIComponent(params[k] ?? ""));
  const qs = Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined);
  return qs.length ? `${path}?${new URLSearchParams(qs)}` : path;
}

export class ApiClient {
  private csrf: string | null = null;

  /** `origin` is "" in pages and the worker (same origin); tests pass an absolute base. */
  constructor(private readonly origin = "") {}

  private call<T>(name: EndpointName, opts: CallOptions = {}): Promise<T> {
    return this.request<T>(ENDPOINTS[name], opts);
  }

  /** Any endpoint described like ENDPOINTS' entries (sections keep their own tables, also checked against OpenAPI). */
  async request<T>(ep: EndpointDef, opts: CallOptions = {}): Promise<T> {
    return (await (await this.fetchOk(ep, opts, "application/json")).json().catch(() => null)) as T;
  }

  /** An endpoint answered with text/event-stream: its body, read as it arrives (automation/sse.ts). */
  async stream(ep: EndpointDef, opts: CallOptions & { signal?: AbortSignal } = {}): Promise<ReadableStream<Uint8Array>> {
    const res = await this.fetchOk(ep, opts, "text/event-stream");
    if (!res.body) throw new ApiError(res.status, { error: "empty stream", code: "INTERNAL_ERROR", status: res.status });
    return res.body;
  }

  /** A successful response, or the error as ApiError / OfflineError. */
  private async fetchOk(ep: EndpointDef, opts: CallOptions & { signal?: AbortSignal }, accept: string, retried = false): Promise<Response> {
    const { method } = ep;
    const headers: Record<string, string> = { accept };
    if (method !== "GET") {
      headers["x-csrf-token"] = await this.csrfToken();
      if (opts.body !== undefined) headers["content-type"] = "application/json";
    }
    let res: Response;
    try {
      res = await fetch(this.origin + urlFor(ep.path, opts.params, opts.query), {
        method,
        headers,
        credentials: "same-origin",
        cache: "no-store",
        signal: opts.signal,
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      });
    } catch (e) {
      if (opts.signal?.aborted) throw e;
      throw new OfflineError();
    }
    if (res.ok) return res;
    const err = ((await res.json().catch(() => null)) ?? { error: res.statusText, code: "INTERNAL_ERROR", status: res.status }) as ErrorBody;
    if (res.status === 503 && err.error === "offline") throw new OfflineError();
    // The token outlives a page but not 12 hours, nor a change of user: fetch a fresh one once.
    if (res.status === 403 && /csrf/i.test(err.error) && !retried) {
      this.csrf = null;
      return this.fetchOk(ep, opts, accept, true);
    }
    throw new ApiError(res.status, err);
  }

  async csrfToken(): Promise<string> {
    this.csrf ??= (await this.call<{ csrfToken: string }>("csrfToken")).csrfToken;
    return this.csrf;
  }

  /** Who the HTTP-only auth cookie names (401 without one). */
  session(): Promise<{ user: { id: string; email: string | null } }> {
    return this.call("session");
  }

  listPasswords(page = 1, limit = 20): Promise<ListPasswordsResponse> {
    return this.call("listPasswords", { query: { page: String(page), limit: String(limit) } });
  }

  reveal(id: string): Promise<RevealResponse> {
    return this.call("reveal", { params: { id } });
  }

  syncPull(since: string | undefined): Promise<SyncPullResponse> {
    return this.call("syncPull", { query: { since } });
  }

  syncPush(mutations: WireMutation[]): Promise<SyncPushResponse> {
    return this.call("syncPush", { body: { mutations } });
  }
}
