import { createECDH, createPublicKey, verify } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { TestProject } from "vitest/node";
// http_ece is the reference aes128gcm implementation (RFC 8188, RFC 8291); the server encrypts with another.
// @ts-expect-error http_ece ships no types
import ece from "http_ece";

declare module "vitest" {
  export interface ProvidedContext {
    pushServiceUrl: string;
  }
}

/**
 * A local push service (RFC 8030) for the worker suite. Subscriptions are registered here by the
 * test with their private ECDH key and auth secret (what a browser keeps), so every message is
 * checked as a push service and a user agent would: the VAPID JWT (RFC 8292) against its k key,
 * then the body decrypted (RFC 8291). Control paths under /__control are the test's only.
 */
type Sub = { privateKey: string; authSecret: string; answer: number; received: Received[] };
type Received = {
  payload: unknown;
  ttl: string | null;
  vapid: { ok: boolean; reason?: string; aud?: string; sub?: string; k?: string };
};

const read = (req: IncomingMessage) =>
  new Promise<Buffer>((resolve) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
  });

/** RFC 8292 section 3: `vapid t=<jwt>, k=<key>`; the JWT signed ES256 by k, aud the origin, exp within 24 h. */
function checkVapid(header: string | undefined, origin: string): Received["vapid"] {
  const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header ?? "");
  if (!m) return { ok: false, reason: "no vapid authorization" };
  const [, jwt, k] = m;
  const [h, p, s] = jwt!.split(".");
  const header64 = JSON.parse(Buffer.from(h!, "base64url").toString());
  const claims = JSON.parse(Buffer.from(p!, "base64url").toString()) as {
    aud?: string;
    exp?: number;
    sub?: string;
  };
  const point = Buffer.from(k!, "base64url");
  if (header64.alg !== "ES256" || point.length !== 65)
    return { ok: false, reason: "not ES256 / P-256" };
  const key = createPublicKey({
    key: {
      kty: "EC",
      crv: "P-256",
      x: point.subarray(1, 33).toString("base64url"),
      y: point.subarray(33).toString("base64url"),
    },
    format: "jwk",
  });
  const good = verify(
    "sha256",
    Buffer.from(`${h}.${p}`),
    { key, dsaEncoding: "ieee-p1363" },
    Buffer.from(s!, "base64url"),
  );
  const now = Math.floor(Date.now() / 1000);
  const base = { aud: claims.aud, sub: claims.sub, k };
  if (!good) return { ok: false, reason: "bad signature", ...base };
  if (claims.aud !== origin) return { ok: false, reason: "wrong aud", ...base };
  if (!claims.exp || claims.exp <= now || claims.exp > now + 24 * 3600)
    return { ok: false, reason: "bad exp", ...base };
  if (!claims.sub || !/^(mailto:|https:)/.test(claims.sub))
    return { ok: false, reason: "bad sub", ...base };
  return { ok: true, ...base };
}

function ecdhFrom(privateKey: string) {
  const ecdh = createECDH("prime256v1");
  ecdh.setPrivateKey(Buffer.from(privateKey, "base64url"));
  return ecdh;
}

export default async function setup(project: TestProject) {
  const subs = new Map<string, Sub>();
  let origin = "";

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://x");
    const json = (status: number, body: unknown) =>
      void res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    const body = await read(req);
    const ctl = /^\/__control\/subs\/([A-Za-z0-9_-]+)$/.exec(url.pathname);
    if (ctl) {
      if (req.method === "PUT") {
        const b = JSON.parse(body.toString()) as { privateKey: string; authSecret: string };
        subs.set(ctl[1]!, { ...b, answer: 201, received: [] });
        return json(200, { ok: true });
      }
      const sub = subs.get(ctl[1]!);
      if (!sub) return json(404, {});
      if (req.method === "PATCH") {
        sub.answer = (JSON.parse(body.toString()) as { answer: number }).answer;
        return json(200, { ok: true });
      }
      return json(200, { received: sub.received });
    }
    const push = /^\/push\/([A-Za-z0-9_-]+)$/.exec(url.pathname);
    if (!push || req.method !== "POST") return json(404, {});
    const sub = subs.get(push[1]!);
    if (!sub) return json(404, {});
    const vapid = checkVapid(req.headers.authorization, origin);
    if (!vapid.ok) {
      sub.received.push({ payload: null, ttl: req.headers.ttl as string | null, vapid });
      return json(401, { reason: vapid.reason });
    }
    if (req.headers["content-encoding"] !== "aes128gcm") return json(415, {});
    let payload: unknown;
    try {
      const plain: Buffer = ece.decrypt(body, {
        version: "aes128gcm",
        privateKey: ecdhFrom(sub.privateKey),
        authSecret: Buffer.from(sub.authSecret, "base64url"),
      });
      payload = JSON.parse(plain.toString());
    } catch (err) {
      payload = { undecryptable: String(err) };
    }
    sub.received.push({ payload, ttl: (req.headers.ttl as string) ?? null, vapid });
    if (sub.answer !== 201) return json(sub.answer, {});
    return void res.writeHead(201, { location: `${origin}/msg/${sub.received.length}` }).end();
  }

  const server = createServer(
    (req, res) => void handle(req, res).catch(() => res.writeHead(500).end()),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  origin = `http://127.0.0.1:${port}`;
  project.provide("pushServiceUrl", origin);
  return async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
}
