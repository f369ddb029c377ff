import { createHash, generateKeyPairSync, sign } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { server } from "./support/server";
import { newUser, type BrowserContext } from "./support/browser";
import { signDevToken } from "../../scripts/lib/dev-identity.mjs";
import { apiAs, ONE_SHOT } from "./support/api";
import {
  buildExtension,
  launchWithExtension,
  newProfile,
  openPopup,
  startRelay,
} from "./support/extension";
import type { Worker } from "playwright-core";

// The extension as a device bound to its own non-extractable key (RFC 9449 DPoP): the service
// worker makes the key, the extension registers with it, and every API call it makes carries a
// proof by it. A copy of its bearer token and fingerprint without the key is an unknown device.
const base = server().baseUrl;
let relay: Awaited<ReturnType<typeof startRelay>>;
let user: Awaited<ReturnType<typeof newUser>>;
let context: BrowserContext;
let worker: Worker;

type Jwk = { kty: string; crv: string; x: string; y: string };
const b64u = (b: Buffer) => b.toString("base64url");
const decode = (part: string) =>
  JSON.parse(Buffer.from(part, "base64url").toString("utf8")) as Record<string, any>;
const sha256 = (s: string) => createHash("sha256").update(s);

/** The extension's stored key pair as its service worker sees it. */
const storedKey = () =>
  worker.evaluate(async () => {
    // Looking must not create: an open of a database not made yet would make it, empty, at
    // version 1, and the extension's own open at version 1 would then find no store to keep its
    // key in. So an open that would create is aborted, and the answer is "no key yet".
    const db = await new Promise<IDBDatabase | null>((resolve, reject) => {
      const r = indexedDB.open("vault-device-key");
      r.onupgradeneeded = () => r.transaction!.abort();
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => (r.error?.name === "AbortError" ? resolve(null) : reject(r.error));
    });
    if (!db) return null;
    const pair = await new Promise<CryptoKeyPair | undefined>((resolve) => {
      const r = db.transaction("keys").objectStore("keys").get("dpop");
      r.onsuccess = () => resolve(r.result as CryptoKeyPair | undefined);
      r.onerror = () => resolve(undefined);
    });
    db.close();
    if (!pair) return null;
    const exported = await crypto.subtle.exportKey("jwk", pair.privateKey).then(
      () => "exported",
      (e: Error) => e.name,
    );
    const { kty, crv, x, y } = await crypto.subtle.exportKey("jwk", pair.publicKey);
    return {
      extractable: pair.privateKey.extractable,
      algorithm: pair.privateKey.algorithm as EcKeyAlgorithm,
      exported,
      jwk: { kty: kty!, crv: crv!, x: x!, y: y! },
    };
  });

/** A request the extension's key signs inside its service worker (the one place the key can sign). */
const signedByExtension = (url: string, token: string, fingerprint: string) =>
  worker.evaluate(
    async ({ url, token, fingerprint }) => {
      const db = await new Promise<IDBDatabase>((resolve) => {
        const r = indexedDB.open("vault-device-key");
        r.onsuccess = () => resolve(r.result);
      });
      const pair = await new Promise<CryptoKeyPair>((resolve) => {
        const r = db.transaction("keys").objectStore("keys").get("dpop");
        r.onsuccess = () => resolve(r.result as CryptoKeyPair);
      });
      db.close();
      const b64 = (bytes: Uint8Array) =>
        btoa(String.fromCharCode(...bytes))
          .replace(/\+/g, "-")
          .replace(/\//g, "_")
          .replace(/=+$/, "");
      const json = (v: unknown) => b64(new TextEncoder().encode(JSON.stringify(v)));
      const headers = { authorization: `Bearer ${token}`, "x-device-fingerprint": fingerprint };
      const { nonce } = (await (
        await fetch(new URL("/api/devices/dpop-nonce", url), { headers })
      ).json()) as { nonce: string };
      const { kty, crv, x, y } = await crypto.subtle.exportKey("jwk", pair.publicKey);
      const ath = b64(
        new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token))),
      );
      const input = `${json({ typ: "dpop+jwt", alg: "ES256", jwk: { kty, crv, x, y } })}.${json({ htm: "GET", htu: url, iat: Math.floor(Date.now() / 1000), jti: crypto.randomUUID(), nonce, ath })}`;
      const signature = new Uint8Array(
        await crypto.subtle.sign(
          { name: "ECDSA", hash: "SHA-256" },
          pair.privateKey,
          new TextEncoder().encode(input),
        ),
      );
      const proof = `${input}.${b64(signature)}`;
      const res = await fetch(url, { headers: { ...headers, dpop: proof } });
      return { status: res.status, proof };
    },
    { url, token, fingerprint },
  );

/** A proof made by another key (the thief's own), otherwise right for the request. */
async function thiefsProof(url: string, token: string): Promise<string> {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const { kty, crv, x, y } = publicKey.export({ format: "jwk" });
  const nonce = (
    (await (
      await fetch(`${relay.url}/api/devices/dpop-nonce`, {
        headers: { authorization: `Bearer ${token}`, ...ONE_SHOT },
      })
    ).json()) as { nonce: string }
  ).nonce;
  const claims = {
    htm: "GET",
    htu: url,
    iat: Math.floor(Date.now() / 1000),
    jti: crypto.randomUUID(),
    nonce,
    ath: b64u(sha256(token).digest()),
  };
  const input = `${b64u(Buffer.from(JSON.stringify({ typ: "dpop+jwt", alg: "ES256", jwk: { kty, crv, x, y } })))}.${b64u(Buffer.from(JSON.stringify(claims)))}`;
  return `${input}.${b64u(sign("sha256", Buffer.from(input), { key: privateKey, dsaEncoding: "ieee-p1363" }))}`;
}

const devices = async () =>
  (await (await apiAs(base, user.token)).get("/api/devices")).body.devices as {
    id: string;
    device_name: string;
    key_bound?: boolean;
    trust_level: string;
  }[];

beforeAll(async () => {
  relay = await startRelay({ host: "127.0.0.1", port: Number(new URL(base).port) });
  buildExtension(relay.url);
  user = await newUser("ext-device");
  ({ context, worker } = await launchWithExtension(newProfile(), base));
  // A fresh sign-in in the web app: the session the extension reads from its cookie.
  await context.addCookies([
    { name: "access_token", value: user.token, url: relay.url, httpOnly: true, sameSite: "Strict" },
  ]);
});

afterAll(async () => {
  await context?.close();
  await relay?.stop();
});

describe("the extension's device key", () => {
  let jwk: Jwk;
  let fingerprint: string;

  it("is made by the service worker and kept in the extension's IndexedDB as a non-extractable P-256 key", async () => {
    await expect.poll(storedKey, { timeout: 15_000 }).not.toBeNull();
    const key = (await storedKey())!;
    expect(key).toMatchObject({
      extractable: false,
      algorithm: { name: "ECDSA", namedCurve: "P-256" },
      exported: "InvalidAccessError",
    });
    jwk = key.jwk;
    fingerprint = sha256(
      `extension|${JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y })}`,
    ).digest("hex");
  });

  it("registers the extension as a key-bound trusted device, and every API call it makes carries a proof by that key", async () => {
    const popup = await openPopup(context);
    await expect
      .poll(async () => (await devices()).filter((d) => /extension on/.test(d.device_name)), {
        timeout: 20_000,
      })
      .toHaveLength(1);
    expect((await devices()).find((d) => /extension on/.test(d.device_name))).toMatchObject({
      key_bound: true,
      trust_level: "trusted",
    });
    await popup.close();

    const calls = relay
      .heard()
      .filter((h) => / \/api\//.test(h.line) && !h.line.includes("/api/devices/dpop-nonce"));
    expect(calls.map((h) => h.line)).toEqual(
      expect.arrayContaining(["POST /api/devices", "GET /api/auth/session"]),
    );
    const jtis = new Set<string>();
    for (const call of calls) {
      const [method, target] = call.line.split(" ") as [string, string];
      expect(call.headers["x-device-fingerprint"], call.line).toBe(fingerprint);
      const proof = call.headers["dpop"];
      expect(proof, `${call.line} carries no proof`).toBeTruthy();
      const [header, claims] = proof!.split(".").slice(0, 2).map(decode) as [
        Record<string, any>,
        Record<string, any>,
      ];
      expect(header).toEqual({ typ: "dpop+jwt", alg: "ES256", jwk });
      expect(claims).toMatchObject({
        htm: method,
        htu: `${relay.url}${target.split("?")[0]}`,
        ath: b64u(sha256(user.token).digest()),
      });
      expect(typeof claims.nonce).toBe("string");
      jtis.add(claims.jti);
    }
    expect(jtis.size).toBe(calls.length);
  });

  it("a stolen bearer token with the extension's fingerprint but without its key is an unknown device; the key itself is let in", async () => {
    const exportUrl = `${relay.url}/api/passwords/export`;
    const stolen = {
      authorization: `Bearer ${user.token}`,
      "x-device-fingerprint": fingerprint,
      ...ONE_SHOT,
    };
    // No proof: export refuses an unknown device (D11), and the device cannot be re-registered.
    expect((await fetch(exportUrl, { headers: stolen })).status).toBe(403);
    const csrf = (
      (await (await fetch(`${relay.url}/api/auth/csrf-token`, { headers: stolen })).json()) as {
        csrfToken: string;
      }
    ).csrfToken;
    const reRegister = await fetch(`${relay.url}/api/devices`, {
      method: "POST",
      headers: { ...stolen, "x-csrf-token": csrf, "content-type": "application/json" },
      body: JSON.stringify({ fingerprint }),
    });
    expect(reRegister.status).toBe(403);
    // A proof by the thief's own key is no better.
    expect(
      (
        await fetch(exportUrl, {
          headers: { ...stolen, dpop: await thiefsProof(exportUrl, user.token) },
        })
      ).status,
    ).toBe(403);
    // The same request signed by the extension's key is this device.
    const own = await signedByExtension(exportUrl, user.token, fingerprint);
    expect(own.status).toBe(200);
    // And a proof, once seen, is not accepted again (RFC 9449 section 11.1).
    expect((await fetch(exportUrl, { headers: { ...stolen, dpop: own.proof } })).status).toBe(403);
    expect(await devices()).toHaveLength(1);
  });

  it("with a sign-in older than 300 s the extension is not registered (a new device needs a recent sign-in); after a fresh sign-in it is", async () => {
    const other = await newUser("ext-device-late");
    const listed = async () =>
      (await (await apiAs(base, other.token)).get("/api/devices")).body.devices as unknown[];
    const registrations = () =>
      relay.heard().filter((h) => h.line === "POST /api/devices" && h.status !== undefined);
    const before = registrations().length;
    const stale = (await signDevToken({
      sub: other.sub,
      email: other.email,
      issuer: server().idpIssuer,
      authAge: 600,
    })) as string;
    await context.addCookies([
      { name: "access_token", value: stale, url: relay.url, httpOnly: true, sameSite: "Strict" },
    ]);
    let popup = await openPopup(context);
    // Refused with its key, then without (the fallback for a device known by fingerprint alone).
    await expect
      .poll(
        () =>
          registrations()
            .slice(before)
            .map((h) => h.status),
        { timeout: 20_000 },
      )
      .toEqual([401, 401]);
    expect(await listed()).toEqual([]);
    await popup.close();
    await context.addCookies([
      {
        name: "access_token",
        value: other.token,
        url: relay.url,
        httpOnly: true,
        sameSite: "Strict",
      },
    ]);
    popup = await openPopup(context);
    await expect.poll(async () => (await listed()).length, { timeout: 20_000 }).toBe(1);
    expect((await listed())[0]).toMatchObject({ key_bound: true, trust_level: "trusted" });
    await popup.close();
  });
});
