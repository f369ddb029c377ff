/**
 * The vault as a WebAuthn authenticator (WebAuthn Level 3 §6): pure encodings and the two
 * operations, make a credential and sign an assertion, on Web Crypto alone. Shared by the
 * extension (which answers pages) and the web app's tests. Byte strings on the way out are
 * base64url, as the page-facing JSON forms (PublicKeyCredential.toJSON) write them.
 */
import { base64url } from "../../src/kernel/base64";
import { concatBytes as concat } from "../../src/kernel/bytes";
import { encodeCbor, type CborMap } from "./cbor";
import type { PasskeyAlg, StoredPasskey } from "../passkeys";

/** This authenticator's AAGUID (§6.5.1), the same for every passkey it makes: it names the maker, no one person. */
export const AAGUID = new Uint8Array([
  0x5c, 0x8a, 0x3e, 0x41, 0x7b, 0x02, 0x4d, 0x96, 0x9f, 0x4e, 0x1d, 0x63, 0xa8, 0x2b, 0x70, 0xc5,
]);

/** authenticatorData flags (§6.1). Backup eligible and backed up: a vault passkey syncs to the person's devices. */
export const FLAG = { UP: 0x01, UV: 0x04, BE: 0x08, BS: 0x10, AT: 0x40, ED: 0x80 } as const;

const enc = new TextEncoder();
const b64u = (b: Uint8Array) => base64url.encode(b);

/** The credential public key as a COSE_Key (RFC 9052 §7, RFC 9053 §2.1 and §2.2; WebAuthn §6.5.1.1). */
export function coseKey(jwk: JsonWebKey, alg: PasskeyAlg): Uint8Array<ArrayBuffer> {
  const x = base64url.decode(jwk.x ?? "");
  if (alg === -7) {
    const y = base64url.decode(jwk.y ?? "");
    if (jwk.crv !== "P-256" || x.length !== 32 || y.length !== 32)
      throw new Error("not a P-256 key");
    return encodeCbor(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, x],
        [-3, y],
      ]) as CborMap,
    );
  }
  if (jwk.crv !== "Ed25519" || x.length !== 32) throw new Error("not an Ed25519 key");
  return encodeCbor(
    new Map<number, number | Uint8Array>([
      [1, 1],
      [3, -8],
      [-1, 6],
      [-2, x],
    ]) as CborMap,
  );
}

/** authenticatorData (§6.1): rpIdHash, flags, the 32-bit counter, and on create the attested credential data (§6.5.1). */
export async function authenticatorData(
  rpId: string,
  flags: number,
  signCount: number,
  attested?: { credentialId: Uint8Array; publicKey: Uint8Array },
): Promise<Uint8Array<ArrayBuffer>> {
  const rpIdHash = new Uint8Array(await crypto.subtle.digest("SHA-256", enc.encode(rpId)));
  const counter = new Uint8Array(4);
  new DataView(counter.buffer).setUint32(0, signCount >>> 0);
  const head = concat(
    rpIdHash,
    new Uint8Array([attested ? flags | FLAG.AT : flags & ~FLAG.AT]),
    counter,
  );
  if (!attested) return head;
  const len = new Uint8Array([
    attested.credentialId.length >> 8,
    attested.credentialId.length & 0xff,
  ]);
  return concat(head, AAGUID, len, attested.credentialId, attested.publicKey);
}

/** The "none" attestation statement format (§8.7): no statement, the authenticator data alone. */
export function noneAttestation(authData: Uint8Array): Uint8Array<ArrayBuffer> {
  return encodeCbor(
    new Map<string, string | CborMap | Uint8Array>([
      ["fmt", "none"],
      ["attStmt", new Map()],
      ["authData", authData],
    ]) as CborMap,
  );
}

/**
 * clientDataJSON in the limited verification algorithm's order (§5.8.1.1 and §5.8.1.2): type,
 * challenge, origin, crossOrigin, then topOrigin when the request came from a cross-origin frame.
 */
export function clientDataJSON(
  type: "webauthn.create" | "webauthn.get",
  challenge: Uint8Array,
  origin: string,
  topOrigin?: string,
): Uint8Array<ArrayBuffer> {
  const fields: Record<string, string | boolean> = {
    type,
    challenge: b64u(challenge),
    origin,
    crossOrigin: topOrigin !== undefined,
  };
  if (topOrigin !== undefined) fields.topOrigin = topOrigin;
  return enc.encode(JSON.stringify(fields));
}

/** A Web Crypto ECDSA signature (r || s, IEEE P1363) as the ASN.1 DER WebAuthn expects (§6.5.5, ES256). */
export function derSignature(raw: Uint8Array): Uint8Array<ArrayBuffer> {
  const int = (b: Uint8Array) => {
    let i = 0;
    while (i < b.length - 1 && b[i] === 0) i++;
    const v = b.subarray(i);
    return v[0]! & 0x80
      ? concat(new Uint8Array([0x02, v.length + 1, 0]), v)
      : concat(new Uint8Array([0x02, v.length]), v);
  };
  const r = int(raw.subarray(0, raw.length / 2));
  const s = int(raw.subarray(raw.length / 2));
  return concat(new Uint8Array([0x30, r.length + s.length]), r, s);
}

const ALGS: Record<PasskeyAlg, { gen: EcKeyGenParams | Algorithm; sign: EcdsaParams | Algorithm }> =
  {
    [-7]: { gen: { name: "ECDSA", namedCurve: "P-256" }, sign: { name: "ECDSA", hash: "SHA-256" } },
    [-8]: { gen: { name: "Ed25519" }, sign: { name: "Ed25519" } },
  };

/**
 * The algorithm to make a key with: the first of the site's pubKeyCredParams this authenticator
 * makes (the list runs from most to least preferred, §5.4 `pubKeyCredParams`), so a site that puts
 * EdDSA first gets Ed25519 when the browser's Web Crypto has it, and ES256 otherwise.
 */
export async function chooseAlg(
  params: { type?: string; alg: number }[],
): Promise<PasskeyAlg | null> {
  const asked = params.filter((p) => (p.type ?? "public-key") === "public-key").map((p) => p.alg);
  // §5.4: an empty list means the client's defaults, ES256 among them.
  if (asked.length === 0) return -7;
  for (const alg of asked) {
    if (alg === -7) return -7;
    if (alg === -8 && (await ed25519Available())) return -8;
  }
  return null;
}

/** Whether this browser's Web Crypto makes Ed25519 keys (Chromium does since 137), asked once. */
let ed25519: Promise<boolean> | null = null;
function ed25519Available(): Promise<boolean> {
  ed25519 ??= crypto.subtle.generateKey({ name: "Ed25519" }, false, ["sign", "verify"]).then(
    () => true,
    () => false,
  );
  return ed25519;
}

export type CreateRequest = {
  rpId: string;
  rpName?: string;
  origin: string;
  topOrigin?: string;
  challenge: Uint8Array;
  user: { id: Uint8Array; name: string; displayName: string };
  alg: PasskeyAlg;
  discoverable: boolean;
};

/** What create() hands the page (§5.2.1), byte strings base64url; and the passkey to store. */
export type Created = {
  passkey: StoredPasskey;
  credential: {
    id: string;
    clientDataJSON: string;
    attestationObject: string;
    authenticatorData: string;
    publicKey: string;
    publicKeyAlgorithm: PasskeyAlg;
  };
};

/** authenticatorMakeCredential (§6.3.2) with user presence and verification given by the vault's own confirmation. */
export async function makeCredential(req: CreateRequest, now = new Date()): Promise<Created> {
  const pair = (await crypto.subtle.generateKey(ALGS[req.alg].gen, true, [
    "sign",
    "verify",
  ])) as CryptoKeyPair;
  const jwk = await crypto.subtle.exportKey("jwk", pair.privateKey);
  const spki = new Uint8Array(await crypto.subtle.exportKey("spki", pair.publicKey));
  const credentialId = crypto.getRandomValues(new Uint8Array(32));
  const authData = await authenticatorData(req.rpId, FLAG.UP | FLAG.UV | FLAG.BE | FLAG.BS, 0, {
    credentialId,
    publicKey: coseKey(jwk, req.alg),
  });
  const passkey: StoredPasskey = {
    credential_id: b64u(credentialId),
    rp_id: req.rpId,
    ...(req.rpName ? { rp_name: req.rpName } : {}),
    user_handle: b64u(req.user.id),
    user_name: req.user.name,
    display_name: req.user.displayName,
    alg: req.alg,
    private_key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, ...(jwk.y ? { y: jwk.y } : {}), d: jwk.d },
    sign_count: 0,
    discoverable: req.discoverable,
    created_at: now.toISOString(),
  };
  return {
    passkey,
    credential: {
      id: passkey.credential_id,
      clientDataJSON: b64u(
        clientDataJSON("webauthn.create", req.challenge, req.origin, req.topOrigin),
      ),
      attestationObject: b64u(noneAttestation(authData)),
      authenticatorData: b64u(authData),
      publicKey: b64u(spki),
      publicKeyAlgorithm: req.alg,
    },
  };
}

/** The passkey's private key as a non-extractable signing key (a caller may keep it for the next assertion). */
export function signingKey(passkey: StoredPasskey): Promise<CryptoKey> {
  return crypto.subtle.importKey("jwk", passkey.private_key, ALGS[passkey.alg].gen, false, [
    "sign",
  ]);
}

export type Assertion = {
  id: string;
  clientDataJSON: string;
  authenticatorData: string;
  signature: string;
  userHandle: string | null;
};

/**
 * authenticatorGetAssertion (§6.3.3): signs authenticatorData || SHA-256(clientDataJSON) with the
 * stored key (`imported`, or imported now), the counter one above the stored one. The caller
 * stores the passkey's new count.
 */
export async function getAssertion(
  passkey: StoredPasskey,
  req: { origin: string; topOrigin?: string; challenge: Uint8Array },
  imported?: CryptoKey,
): Promise<{ assertion: Assertion; signCount: number }> {
  const signCount = passkey.sign_count + 1;
  const key = imported ?? (await signingKey(passkey));
  const authData = await authenticatorData(
    passkey.rp_id,
    FLAG.UP | FLAG.UV | FLAG.BE | FLAG.BS,
    signCount,
  );
  const cdj = clientDataJSON("webauthn.get", req.challenge, req.origin, req.topOrigin);
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", cdj));
  const raw = new Uint8Array(
    await crypto.subtle.sign(ALGS[passkey.alg].sign, key, concat(authData, hash)),
  );
  return {
    signCount,
    assertion: {
      id: passkey.credential_id,
      clientDataJSON: b64u(cdj),
      authenticatorData: b64u(authData),
      signature: b64u(passkey.alg === -7 ? derSignature(raw) : raw),
      userHandle: passkey.user_handle || null,
    },
  };
}
