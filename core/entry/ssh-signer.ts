/**
 * Every SSH key kind the vault keeps, opened for signing: Ed25519 (RFC 8709), ECDSA on the NIST
 * curves (RFC 5656) and RSA (RFC 4253 section 6.6, with the SHA-2 signatures of RFC 8332). Keys are
 * imported from OpenSSH's own unencrypted key file and kept as that file; a key is checked on
 * import by signing with its private half and verifying with the public half the file lists, so a
 * damaged or mismatched file is refused before it is saved.
 */
import { base64url, toBase64 } from "../../src/kernel/base64";
import { concatBytes as concat } from "../../src/kernel/bytes";
import {
  ed25519Blob,
  ed25519Signer,
  fingerprintOf,
  importEd25519Key,
  privateSection,
  readSshKeyFile,
  SshKeyError,
  SshReader,
  sshString,
  type SshKey,
} from "./ssh-key";

type Bytes = Uint8Array<ArrayBuffer>;

/** A key opened for signing: its public wire blob, and a signer that returns SSH's signature blob. */
export type SshSigner = {
  type: string;
  blob: Bytes;
  comment: string;
  /** `flags` are the agent protocol's SSH_AGENT_RSA_SHA2_256 (2) and _512 (4); other kinds ignore them. */
  sign(data: Uint8Array, flags?: number): Promise<Bytes>;
  /** Whether `signature` (an SSH signature blob) is this key's over `data`. */
  verify(data: Uint8Array, signature: Uint8Array): Promise<boolean>;
};

export const RSA_SHA2_256 = 2;
export const RSA_SHA2_512 = 4;

const CURVES = {
  nistp256: { crv: "P-256", size: 32, hash: "SHA-256" },
  nistp384: { crv: "P-384", size: 48, hash: "SHA-384" },
  nistp521: { crv: "P-521", size: 66, hash: "SHA-512" },
} as const;

/** An RFC 4251 mpint's magnitude, without the sign byte: the unsigned big-endian integer. */
const unsigned = (b: Uint8Array): Bytes => {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  return Uint8Array.from(b.subarray(i));
};
/** RFC 4251 mpint of a non-negative integer: minimal, with a zero byte where the top bit is set. */
const mpint = (b: Uint8Array): Bytes => {
  const m = unsigned(b);
  if (m.length === 1 && m[0] === 0) return sshString(new Uint8Array());
  return sshString(m[0]! & 0x80 ? concat(new Uint8Array([0]), m) : m);
};
const fixed = (b: Uint8Array, size: number): Bytes => {
  const m = unsigned(b);
  if (m.length > size) throw new SshKeyError("The key has the wrong size for its curve");
  return concat(new Uint8Array(size - m.length), m);
};
const big = (b: Uint8Array) =>
  BigInt(`0x${Array.from(unsigned(b), (x) => x.toString(16).padStart(2, "0")).join("") || "0"}`);
const bytesOf = (n: bigint): Bytes => {
  const hex = n.toString(16);
  return Uint8Array.from((hex.length % 2 ? `0${hex}` : hex).match(/../g)!, (h) => parseInt(h, 16));
};
const u = (b: Uint8Array) => base64url.encode(unsigned(b));

async function ecdsa(type: string, f: SshReader): Promise<Omit<SshSigner, "comment">> {
  const curveName = f.text();
  const curve = CURVES[curveName as keyof typeof CURVES];
  if (!curve || type !== `ecdsa-sha2-${curveName}`)
    throw new SshKeyError(`This ECDSA curve is not kept: ${curveName}`);
  const q = f.bytes();
  if (q[0] !== 4 || q.length !== 1 + 2 * curve.size)
    throw new SshKeyError("The ECDSA public point is malformed");
  const d = fixed(f.bytes(), curve.size);
  const pub = {
    kty: "EC",
    crv: curve.crv,
    x: u(q.subarray(1, 1 + curve.size)),
    y: u(q.subarray(1 + curve.size)),
  };
  const alg = { name: "ECDSA", namedCurve: curve.crv };
  const priv = await crypto.subtle.importKey(
    "jwk",
    { ...pub, d: base64url.encode(d) },
    alg,
    false,
    ["sign"],
  );
  const verifier = await crypto.subtle.importKey("jwk", pub, alg, false, ["verify"]);
  const params = { name: "ECDSA", hash: curve.hash };
  return {
    type,
    blob: concat(sshString(type), sshString(curveName), sshString(q)),
    async sign(data) {
      // WebCrypto's r || s, each the curve's size (IEEE P1363), becomes RFC 5656's two mpints.
      const rs = new Uint8Array(await crypto.subtle.sign(params, priv, Uint8Array.from(data)));
      const inner = concat(mpint(rs.subarray(0, curve.size)), mpint(rs.subarray(curve.size)));
      return concat(sshString(type), sshString(inner));
    },
    async verify(data, signature) {
      const r = new SshReader(signature);
      if (r.text() !== type) return false;
      const inner = new SshReader(r.bytes());
      const rs = concat(fixed(inner.bytes(), curve.size), fixed(inner.bytes(), curve.size));
      return crypto.subtle.verify(params, verifier, rs, Uint8Array.from(data));
    },
  };
}

async function rsa(f: SshReader): Promise<Omit<SshSigner, "comment">> {
  const [n, e, d, iqmp, p, q] = [f.bytes(), f.bytes(), f.bytes(), f.bytes(), f.bytes(), f.bytes()];
  if (unsigned(n!).length < 256) throw new SshKeyError("RSA keys under 2048 bits are not kept");
  const D = big(d!);
  const jwk = {
    kty: "RSA",
    n: u(n!),
    e: u(e!),
    d: u(d!),
    p: u(p!),
    q: u(q!),
    dp: base64url.encode(bytesOf(D % (big(p!) - 1n))),
    dq: base64url.encode(bytesOf(D % (big(q!) - 1n))),
    qi: u(iqmp!),
  };
  const keys = async (hash: string) => ({
    priv: await crypto.subtle.importKey("jwk", jwk, { name: "RSASSA-PKCS1-v1_5", hash }, false, [
      "sign",
    ]),
    pub: await crypto.subtle.importKey(
      "jwk",
      { kty: "RSA", n: jwk.n, e: jwk.e },
      { name: "RSASSA-PKCS1-v1_5", hash },
      false,
      ["verify"],
    ),
  });
  const ALGS = {
    "rsa-sha2-512": "SHA-512",
    "rsa-sha2-256": "SHA-256",
    "ssh-rsa": "SHA-1",
  } as const;
  const byAlg = new Map<string, Awaited<ReturnType<typeof keys>>>();
  const open = async (alg: keyof typeof ALGS) => {
    if (!byAlg.has(alg)) byAlg.set(alg, await keys(ALGS[alg]));
    return byAlg.get(alg)!;
  };
  // A broken private key fails here, at import, rather than at its first signature.
  await open("rsa-sha2-512");
  return {
    type: "ssh-rsa",
    blob: concat(sshString("ssh-rsa"), mpint(e!), mpint(n!)),
    async sign(data, flags = 0) {
      // RFC 8332 section 3: the agent's flags choose the hash; without them, SHA-1's "ssh-rsa".
      const alg =
        flags & RSA_SHA2_512 ? "rsa-sha2-512" : flags & RSA_SHA2_256 ? "rsa-sha2-256" : "ssh-rsa";
      const sig = await crypto.subtle.sign(
        "RSASSA-PKCS1-v1_5",
        (await open(alg)).priv,
        Uint8Array.from(data),
      );
      return concat(sshString(alg), sshString(new Uint8Array(sig)));
    },
    async verify(data, signature) {
      const r = new SshReader(signature);
      const alg = r.text();
      if (!(alg in ALGS)) return false;
      const key = (await open(alg as keyof typeof ALGS)).pub;
      return crypto.subtle.verify(
        "RSASSA-PKCS1-v1_5",
        key,
        Uint8Array.from(r.bytes()),
        Uint8Array.from(data),
      );
    },
  };
}

async function ed25519(text: string): Promise<Omit<SshSigner, "comment">> {
  const { seed, pub } = readSshKeyFile(text);
  const sign = await ed25519Signer(seed);
  const verifier = await crypto.subtle.importKey("raw", pub, { name: "Ed25519" }, false, [
    "verify",
  ]);
  return {
    type: "ssh-ed25519",
    blob: ed25519Blob(pub),
    sign: async (data) =>
      concat(sshString("ssh-ed25519"), sshString(await sign(Uint8Array.from(data)))),
    async verify(data, signature) {
      const r = new SshReader(signature);
      if (r.text() !== "ssh-ed25519") return false;
      return crypto.subtle.verify(
        "Ed25519",
        verifier,
        Uint8Array.from(r.bytes()),
        Uint8Array.from(data),
      );
    },
  };
}

/** Opens an OpenSSH private key file of any kept kind for signing. */
export async function openSshKey(text: string): Promise<SshSigner> {
  const { type, fields, listed } = privateSection(text);
  let key: Omit<SshSigner, "comment">;
  try {
    if (type === "ssh-ed25519") key = await ed25519(text);
    else if (type.startsWith("ecdsa-sha2-")) key = await ecdsa(type, fields);
    else if (type === "ssh-rsa") key = await rsa(fields);
    else throw new SshKeyError(`Ed25519, ECDSA and RSA keys are kept; this one is ${type}`);
  } catch (e) {
    if (e instanceof SshKeyError) throw e;
    // WebCrypto refused the numbers: a point off the curve, an RSA key whose parts do not agree.
    throw new SshKeyError("The key file's private key is damaged");
  }
  if (toBase64(listed) !== toBase64(key.blob))
    throw new SshKeyError("The key file's public key is not its private key's");
  // Ed25519's comment was read by readSshKeyFile; the others' follows their fields here.
  const comment = type === "ssh-ed25519" ? readSshKeyFile(text).comment : fields.text();
  return { ...key, comment };
}

const PROBE = new TextEncoder().encode("vault ssh key check");

/** An imported key file of any kept kind, checked (its public half must be its private half's) and described. */
export async function importSshKey(text: string): Promise<SshKey> {
  const { type } = privateSection(text);
  if (type === "ssh-ed25519") return importEd25519Key(text);
  const key = await openSshKey(text);
  const flags = RSA_SHA2_512;
  if (!(await key.verify(PROBE, await key.sign(PROBE, flags))))
    throw new SshKeyError("The key file's public key is not its private key's");
  const armoured =
    /-----BEGIN OPENSSH PRIVATE KEY-----[\s\S]*?-----END OPENSSH PRIVATE KEY-----/.exec(text)![0];
  return {
    private_key: `${armoured}\n`,
    public_key: `${key.type} ${toBase64(key.blob)}${key.comment ? ` ${key.comment}` : ""}`,
    fingerprint: await fingerprintOf(key.blob),
  };
}
