import type { MiddlewareHandler } from "hono";
import type { BeginResult, StoredResponse } from "../../durable-objects/idempotency";
import type { Bindings } from "../env";
import { sha256Hex } from "../lib/crypto";
import { AppError, ErrorCode } from "../lib/errors";
import type { AppEnv } from "./types";

export interface IdempotencyClient {
  begin(userId: string, key: string, fingerprint: string): Promise<BeginResult>;
  complete(userId: string, key: string, response: StoredResponse): Promise<void>;
  release(userId: string, key: string): Promise<void>;
}

export function idempotencyClient(env: Bindings): IdempotencyClient {
  const stub = (userId: string) => env.IDEMPOTENCY.get(env.IDEMPOTENCY.idFromName(userId));
  return {
    begin: (userId, key, fp) => stub(userId).begin(key, fp) as Promise<BeginResult>,
    complete: (userId, key, response) => stub(userId).complete(key, response),
    release: (userId, key) => stub(userId).release(key),
  };
}

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * Honours `Idempotency-Key` for one route, per user, for one hour. Runs after validation so that
 * the fingerprint is of a payload the route accepted. A server error releases the key so the
 * client may retry.
 */
export function idempotency(): MiddlewareHandler<AppEnv> {
  return async function idempotency(c, next) {
    const key = c.req.header("idempotency-key");
    if (key === undefined) return next();
    if (!KEY_PATTERN.test(key)) {
      throw new AppError(ErrorCode.VALIDATION_ERROR, "Invalid Idempotency-Key", {
        details: [{ field: "Idempotency-Key", message: "1 to 255 visible ASCII characters" }],
      });
    }
    const userId = c.get("user").id;
    const fingerprint = await sha256Hex(`${c.req.method} ${c.req.path}\n${await c.req.text()}`);
    const client = idempotencyClient(c.env);
    const begun = await client.begin(userId, key, fingerprint);
    if (begun.state === "mismatch") {
      throw new AppError(
        ErrorCode.UNPROCESSABLE,
        "Idempotency-Key was used with a different request",
      );
    }
    if (begun.state === "in_flight") {
      throw new AppError(
        ErrorCode.CONFLICT,
        "A request with this Idempotency-Key is still being processed",
      );
    }
    if (begun.state === "replay") {
      const headers = new Headers(begun.response.headers);
      headers.set("Idempotent-Replayed", "true");
      c.res = new Response(begun.response.body, { status: begun.response.status, headers });
      return;
    }
    try {
      await next();
    } catch (err) {
      await client.release(userId, key);
      throw err;
    }
    const res = c.res;
    if (c.error || res.status >= 500) {
      await client.release(userId, key);
      return;
    }
    const body = await res.clone().text();
    const headers: [string, string][] = [];
    res.headers.forEach((v, k) => {
      if (k === "content-type" || k === "location") headers.push([k, v]);
    });
    await client.complete(userId, key, { status: res.status, headers, body });
  };
}
