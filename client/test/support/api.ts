import type { EntrySecrets, VaultKeys } from "../../../core/crypto/crypto";
import { openEntry, placeOf, sealEntry } from "../../../core/crypto/envelope";

/**
 * Asks the server to close the connection after its answer. What keeps every request of the suite
 * off a kept-alive connection (which a server may close as idle just as the request is written:
 * "other side closed") is support/fresh-connections.ts, for every fetch; this header only says so
 * on the wire where a test names it.
 */
export const ONE_SHOT = { connection: "close" } as const;

/** The API as another device of the same user sees it: Bearer token and CSRF, from Node. */
export async function apiAs(base: string, token: string) {
  const auth = { authorization: `Bearer ${token}`, ...ONE_SHOT };
  const csrfRes = await fetch(`${base}/api/auth/csrf-token`, { headers: auth });
  if (!csrfRes.ok) throw new Error(`csrf-token: ${csrfRes.status}`);
  const { csrfToken } = (await csrfRes.json()) as { csrfToken: string };
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...auth,
        "x-csrf-token": csrfToken,
        ...(body ? { "content-type": "application/json" } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  return {
    get: (path: string) => call("GET", path),
    post: (path: string, body?: unknown) => call("POST", path, body),
    patch: (path: string, body: unknown) => call("PATCH", path, body),
    put: (path: string, body: unknown) => call("PUT", path, body),
    delete: (path: string) => call("DELETE", path),
    /** Live entries by name. */
    async entries(): Promise<Map<string, any>> {
      const { status, body } = await call("GET", "/api/passwords?limit=2000");
      if (status !== 200) throw new Error(`list: ${status}`);
      return new Map(body.data.map((e: { name: string }) => [e.name, e]));
    },
  };
}

type Placed = { id: string; website?: string | null; url?: string | null };

/** An envelope as the web client seals it for this entry of this user (bound to its place). */
export function sealFor(
  keys: VaultKeys,
  userId: string,
  entry: Placed,
  secrets: Partial<EntrySecrets>,
) {
  return sealEntry(keys, placeOf(userId, entry), {
    username: "",
    password: "",
    notes: "",
    category: "",
    totp: "",
    ...secrets,
  });
}

/** The secrets of a server entry (list or sync shape), opened in its place. */
export async function openFor(
  keys: VaultKeys,
  userId: string,
  entry: Placed & { wrapped_item_key: string; encrypted_data: string },
): Promise<EntrySecrets> {
  return (await openEntry(keys, placeOf(userId, entry), entry)).secrets;
}
