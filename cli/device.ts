/**
 * The command line as a device of the account (spec "Trusted device"), with a possession key of
 * its own: an ECDSA P-256 pair kept in the configuration folder (0600, as an SSH key is kept; a
 * process has no non-extractable store that outlives it), which signs the DPoP proof (RFC 9449)
 * the web app and the extension send with every call. Its fingerprint is the SHA-256 of the public
 * key, as the extension's is: a new key is a new device.
 */
import { createHash } from "node:crypto";
import { hostname } from "node:os";
import { ApiClient, setDefaultHeader, setProofSigner, type DeviceRegistration } from "../core/api";
import { publicJwk, signProof } from "../core/crypto";
import { freshSignIn } from "./oidc";
import { deviceKeyFile, readJson, writePrivate } from "./state";

/** The server accepts its nonce for 300 s (src/lib/dpop.ts); a fresh one is asked for well before. */
const NONCE_REUSE_MS = 240_000;
const EC = { name: "ECDSA", namedCurve: "P-256" } as const;

async function keyPair(): Promise<CryptoKeyPair> {
  let jwk = readJson<JsonWebKey>(deviceKeyFile());
  if (!jwk) {
    const made = await crypto.subtle.generateKey(EC, true, ["sign", "verify"]);
    jwk = await crypto.subtle.exportKey("jwk", made.privateKey);
    writePrivate(deviceKeyFile(), jwk);
  }
  const { d: _d, key_ops: _ops, ...pub } = jwk;
  return {
    // Imported for signing only: nothing in this process reads the private half back out.
    privateKey: await crypto.subtle.importKey("jwk", jwk, EC, false, ["sign"]),
    publicKey: await crypto.subtle.importKey("jwk", { ...pub, ext: true }, EC, true, ["verify"]),
  };
}

function fingerprintOf(pub: { crv: string; kty: string; x: string; y: string }): string {
  const canonical = JSON.stringify({ crv: pub.crv, kty: pub.kty, x: pub.x, y: pub.y });
  return createHash("sha256").update(`cli|${canonical}`).digest("hex");
}

/** How this device names itself on the Devices page. */
function registration(
  fingerprint: string,
  publicKey: NonNullable<DeviceRegistration["publicKey"]>,
): DeviceRegistration {
  const os = { darwin: "macOS", linux: "Linux", win32: "Windows" }[process.platform as string];
  return {
    fingerprint,
    deviceName: `Command line on ${hostname().slice(0, 60) || "this computer"}`,
    deviceType: "desktop",
    os: os ?? process.platform,
    browser: "vault CLI",
    publicKey,
  };
}

let prepared: Promise<DeviceRegistration> | null = null;

/**
 * The fingerprint and the proof signer in place for every call of this process to `server`;
 * resolves to the registration body.
 */
export function proveDevice(server: string): Promise<DeviceRegistration> {
  prepared ??= (async () => {
    const pair = await keyPair();
    const pub = await publicJwk(pair);
    const me = registration(fingerprintOf(pub), pub);
    setDefaultHeader("x-device-fingerprint", me.fingerprint);
    let nonce: { value: Promise<string>; at: number } | null = null;
    // The nonce is asked as any call is, with the bearer token, but needs no proof itself.
    const fetchNonce = async (token: string | null) => {
      const res = await fetch(`${server}/api/devices/dpop-nonce`, {
        cache: "no-store",
        headers: token ? { authorization: `Bearer ${token}` } : {},
      });
      if (!res.ok) throw new Error(`no DPoP nonce (${res.status})`);
      return ((await res.json()) as { nonce: string }).nonce;
    };
    setProofSigner(async (req) => {
      if (!nonce || Date.now() - nonce.at > NONCE_REUSE_MS) {
        const value = fetchNonce(req.accessToken);
        nonce = { value, at: Date.now() };
        value.catch(() => (nonce = null));
      }
      try {
        return await signProof(pair, req, await nonce.value);
      } catch {
        // No nonce (the server unreachable): the call goes unproven and fails on its own terms.
        return null;
      }
    });
    return me;
  })();
  return prepared;
}

/** The API as this device of the signed-in person: Bearer token (renewed as needed) and proofs. */
export async function apiFor(server: string): Promise<ApiClient> {
  await proveDevice(server);
  return new ApiClient(server, async () => (await freshSignIn()).tokens.access);
}

/** Registers this device with its key: right after a sign-in, which a new device needs (D3). */
export async function registerDevice(api: ApiClient, server: string) {
  return (await api.registerDevice(await proveDevice(server))).device;
}
