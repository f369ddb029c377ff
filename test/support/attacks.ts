/**
 * The attack catalogue's shared moves (test/*\/attacks.test.ts): a browser's cookie-authenticated
 * call as a cross-site form or fetch would make it, and a body past the route's size cap.
 */
import { DEFAULT_BODY_LIMIT } from "../../src/http/route";
import type { TestUser } from "./auth";
import { SELF } from "./worker";

/**
 * A mutation carrying only the session cookie, as the browser attaches it to another page's
 * request; `csrf` is the token header when the test gives one (a foreign or stale token).
 */
export function viaCookie(
  user: TestUser,
  method: string,
  path: string,
  body?: unknown,
  csrf?: string,
): Promise<Response> {
  const headers: Record<string, string> = {
    cookie: `__Host-access_token=${user.token}`,
    "content-type": "application/json",
  };
  if (csrf) headers["x-csrf-token"] = csrf;
  return SELF.fetch(`https://vault.test${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** `fields` as JSON padded past the default body cap (1 MiB) with a field no route reads. */
export function oversized(fields: Record<string, unknown> = {}): string {
  return JSON.stringify({ ...fields, pad: "x".repeat(DEFAULT_BODY_LIMIT) });
}
