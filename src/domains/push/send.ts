import { encryptNotification } from "@block65/webcrypto-web-push";
import { importJWK, SignJWT } from "jose";
import type { Db } from "../../db/client";
import type { PushSubscriptionRow } from "../../db/schema";
import type { Config } from "../../env";
import { guardOptions } from "../../lib/guarded-fetch";
import { assertPublicUrl } from "../../lib/outbound-guard";
import { listFor, remove } from "./repo";
import { errorName, logJson } from "../../lib/log";

/** What the service worker shows; no secrets, only what a lock screen may display. */
export type PushPayload = { type: string; title: string; body: string; url: string };

type PushConfig = NonNullable<Config["push"]>;

const SEND_TIMEOUT_MS = 5_000;
/** RFC 8030 section 5.2: how long the push service keeps an undelivered message; a day suits reminders. */
const TTL_SECONDS = 24 * 60 * 60;

function b64urlToBytes(v: string): Uint8Array {
  const s = v.replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(s + "=".repeat((4 - (s.length % 4)) % 4)), (ch) => ch.charCodeAt(0));
}

const bytesToB64url = (b: Uint8Array) =>
  btoa(String.fromCharCode(...b))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

/**
 * RFC 8292 section 2: an ES256 JWT whose aud is the push resource's origin, exp within 24 hours,
 * sub a contact. Signed with jose rather than the library's vapidHeaders, which refuses any
 * endpoint that is not https: and so the local push-service stand-in of the tests.
 */
async function vapidAuthorization(push: PushConfig, endpoint: URL): Promise<string> {
  const point = b64urlToBytes(push.publicKey);
  const key = await importJWK(
    {
      kty: "EC",
      crv: "P-256",
      x: bytesToB64url(point.slice(1, 33)),
      y: bytesToB64url(point.slice(33, 65)),
      d: push.privateKey,
    },
    "ES256",
  );
  const jwt = await new SignJWT({ sub: push.subject })
    .setProtectedHeader({ alg: "ES256", typ: "JWT" })
    .setAudience(endpoint.origin)
    .setExpirationTime(Math.floor(Date.now() / 1000) + 12 * 60 * 60)
    .sign(key);
  return `vapid t=${jwt}, k=${push.publicKey}`;
}

/** Sends to one subscription; answers whether the subscription is gone (RFC 8030 section 7.3: 404, 410). */
async function sendOne(
  config: Config,
  push: PushConfig,
  sub: PushSubscriptionRow,
  payload: PushPayload,
): Promise<"sent" | "gone" | "failed"> {
  const url = await assertPublicUrl(sub.endpoint, "endpoint", guardOptions(config));
  const body = await encryptNotification(
    { endpoint: sub.endpoint, expirationTime: null, keys: { p256dh: sub.p256dh, auth: sub.auth } },
    new TextEncoder().encode(JSON.stringify(payload)),
  );
  const res = await fetch(url, {
    method: "POST",
    // No redirects: a push service answers 201; a redirect could lead the encrypted body elsewhere.
    redirect: "manual",
    headers: {
      authorization: await vapidAuthorization(push, url),
      "content-encoding": "aes128gcm",
      "content-type": "application/octet-stream",
      ttl: String(TTL_SECONDS),
      urgency: "high",
    },
    body,
    signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
  });
  await res.body?.cancel();
  if (res.status === 404 || res.status === 410) return "gone";
  return res.ok ? "sent" : "failed";
}

/**
 * Pushes one message to every subscription the user has. Never throws: a push is a courtesy on
 * top of the stored notification. Logs name the push service's host only, since the endpoint path
 * is a capability.
 */
export async function pushToUser(
  db: Db,
  config: Config,
  userId: string,
  payload: PushPayload,
): Promise<void> {
  const push = config.push;
  if (!push) return;
  let subs: PushSubscriptionRow[];
  try {
    subs = await listFor(db, userId);
  } catch (err) {
    logJson("error", "push: listing subscriptions failed", { error: errorName(err) });
    return;
  }
  await Promise.all(
    subs.map(async (sub) => {
      const host = new URL(sub.endpoint).host;
      try {
        const outcome = await sendOne(config, push, sub, payload);
        if (outcome === "gone") await remove(db, userId, sub.id);
        else if (outcome === "failed")
          logJson("warn", "push: the push service refused the message", { host });
      } catch (err) {
        logJson("warn", "push: sending failed", { host, error: errorName(err) });
      }
    }),
  );
}
