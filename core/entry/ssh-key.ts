/**
 * SSH keys kept in the vault: Ed25519 keys made here (WebCrypto) or imported from an OpenSSH
 * private key file, held inside the sealed payload in OpenSSH's own file format, so the private key
 * leaves the vault exactly as `ssh-keygen` would have written it. The public key line and its
 * fingerprint are what the app shows and what an SSH agent lists.
 *
 * Formats: the key file is PROTOCOL.key of OpenSSH ("openssh-key-v1", here unencrypted: the vault's
 * own encryption protects it); key blobs, strings and signatures are RFC 4251 section 5 encodings;
 * Ed25519 keys and signatures are RFC 8709; the fingerprint is SHA-256 of the public key blob in
 * unpadded base64, as `ssh-keygen -l` prints it.
 */
import { concatBytes as concat } from "../../src/kernel/bytes";

export type SshKey = {
  /** The OpenSSH private key file, PEM-armoured. */
  private_key: string;
  /** `ssh-ed25519 AAAA… comment`, as in authorized_keys. */
  public_key: string;
  /** `SHA256:…`. */
  fingerprint: string;
};

export class SshKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SshKeyError";
  }
}

const MAGIC = "openssh-key-v1\0";
const ED25519 = "ssh-ed25519";
const enc = new TextEncoder();
const dec = new TextDecoder();

/** Bytes on an ArrayBuffer of their own, as WebCrypto takes them. */
type Bytes = Uint8Array<ArrayBuffer>;

const b64 = (b: Uint8Array) => btoa(String.fromCharCode(...b));
const unb64 = (s: string): Bytes => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

const u32 = (n: number): Bytes =>
  new Uint8Array([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);
/** RFC 4251 `string`: a uint32 length, then the bytes. */
export const sshString = (b: Uint8Array | string): Bytes => {
  const bytes = typeof b === "string" ? enc.encode(b) : b;
  return concat(u32(bytes.length), bytes);
};

/** Reads RFC 4251 values in order; any read past the end is a malformed key. */
export class SshReader {
  private at = 0;
  constructor(private readonly b: Uint8Array) {}
  get done() {
    return this.at >= this.b.length;
  }
  uint32(): number {
    if (this.at + 4 > this.b.length) throw new SshKeyError("The key is cut short");
    const v = new DataView(this.b.buffer, this.b.byteOffset + this.at, 4).getUint32(0);
    this.at += 4;
    return v;
  }
  bytes(): Uint8Array {
    const n = this.uint32();
    if (this.at + n > this.b.length) throw new SshKeyError("The key is cut short");
    const v = this.b.subarray(this.at, this.at + n);
    this.at += n;
    return v;
  }
  text = () => dec.decode(this.bytes());
}

/** The wire blob of an Ed25519 public key (RFC 8709 section 4). */
export const ed25519Blob = (pub: Uint8Array): Bytes => concat(sshString(ED25519), sshString(pub));

export async function fingerprintOf(blob: Bytes): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", blob));
  return `SHA256:${b64(digest).replace(/=+$/, "")}`;
}

function armour(body: Uint8Array): string {
  const lines = b64(body).match(/.{1,70}/g) ?? [];
  return `-----BEGIN OPENSSH PRIVATE KEY-----\n${lines.join("\n")}\n-----END OPENSSH PRIVATE KEY-----\n`;
}

/** PROTOCOL.key, unencrypted: one Ed25519 key with its comment, padded to the block size of 8. */
function keyFile(seed: Uint8Array, pub: Uint8Array, comment: string): Bytes {
  const check = crypto.getRandomValues(new Uint8Array(4));
  let priv = concat(
    check,
    check,
    sshString(ED25519),
    sshString(pub),
    sshString(concat(seed, pub)),
    sshString(comment),
  );
  const pad = (8 - (priv.length % 8)) % 8;
  priv = concat(
    priv,
    Uint8Array.from({ length: pad }, (_, i) => i + 1),
  );
  return concat(
    enc.encode(MAGIC),
    sshString("none"),
    sshString("none"),
    sshString(""),
    u32(1),
    sshString(ed25519Blob(pub)),
    sshString(priv),
  );
}

async function described(seed: Uint8Array, pub: Uint8Array, comment: string): Promise<SshKey> {
  const blob = ed25519Blob(pub);
  return {
    private_key: armour(keyFile(seed, pub, comment)),
    public_key: `${ED25519} ${b64(blob)}${comment ? ` ${comment}` : ""}`,
    fingerprint: await fingerprintOf(blob),
  };
}

/** A new Ed25519 key, made on this device. */
export async function generateSshKey(comment = ""): Promise<SshKey> {
  const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, [
    "sign",
    "verify",
  ])) as CryptoKeyPair;
  const pkcs8 = new Uint8Array(
    (await crypto.subtle.exportKey("pkcs8", pair.privateKey)) as ArrayBuffer,
  );
  const pub = new Uint8Array((await crypto.subtle.exportKey("raw", pair.publicKey)) as ArrayBuffer);
  return described(pkcs8.subarray(pkcs8.length - 32), pub, comment);
}

/**
 * The one private section of an unencrypted OpenSSH key file, its check bytes checked, read up to
 * its key type; the reader stands at the type's own fields. `listed` is the public key blob the file
 * names outside its private section.
 */
export function privateSection(text: string): {
  type: string;
  fields: SshReader;
  listed: Uint8Array;
} {
  const m = /-----BEGIN OPENSSH PRIVATE KEY-----([\s\S]*?)-----END OPENSSH PRIVATE KEY-----/.exec(
    text,
  );
  if (!m)
    throw new SshKeyError(
      "Not an OpenSSH private key file (it starts with -----BEGIN OPENSSH PRIVATE KEY-----)",
    );
  let body: Uint8Array;
  try {
    body = unb64(m[1]!.replace(/\s+/g, ""));
  } catch {
    throw new SshKeyError("The key file's base64 is damaged");
  }
  if (dec.decode(body.subarray(0, MAGIC.length)) !== MAGIC)
    throw new SshKeyError("Not an OpenSSH private key file");
  const r = new SshReader(body.subarray(MAGIC.length));
  const cipher = r.text();
  r.text();
  r.bytes();
  if (cipher !== "none")
    throw new SshKeyError(
      "The key file is protected by a passphrase: remove it first (ssh-keygen -p -f <file>), the vault encrypts the key itself",
    );
  if (r.uint32() !== 1) throw new SshKeyError("The key file holds more than one key");
  const listed = r.bytes();
  const fields = new SshReader(r.bytes());
  if (fields.uint32() !== fields.uint32())
    throw new SshKeyError("The key file is damaged (check bytes differ)");
  return { type: fields.text(), fields, listed };
}

/** The Ed25519 seed, public key and comment of an OpenSSH private key file. */
export function readSshKeyFile(text: string): {
  seed: Bytes;
  pub: Bytes;
  comment: string;
} {
  const { type, fields: p } = privateSection(text);
  if (type !== ED25519) throw new SshKeyError(`Not an Ed25519 key: this one is ${type}`);
  const pub = p.bytes();
  const both = p.bytes();
  if (pub.length !== 32 || both.length !== 64)
    throw new SshKeyError("The Ed25519 key has the wrong size");
  return {
    seed: Uint8Array.from(both.subarray(0, 32)),
    pub: Uint8Array.from(pub),
    comment: p.text(),
  };
}

/** An imported Ed25519 key file, checked (its public half must be its private half's) and described. */
export async function importEd25519Key(text: string): Promise<SshKey> {
  const { seed, pub, comment } = readSshKeyFile(text);
  const signer = await ed25519Signer(seed);
  const probe: Bytes = Uint8Array.from(enc.encode("vault ssh key check"));
  const key = await crypto.subtle.importKey("raw", pub, { name: "Ed25519" }, false, ["verify"]);
  if (!(await crypto.subtle.verify("Ed25519", key, await signer(probe), probe)))
    throw new SshKeyError("The key file's public key is not its private key's");
  return described(seed, pub, comment);
}

/** PKCS #8 of an Ed25519 seed (RFC 8410): a fixed prefix, then the 32 bytes. */
const PKCS8_ED25519 = Uint8Array.from([
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
]);

/** Signs with an Ed25519 seed: the 64-byte signature of RFC 8032. */
export async function ed25519Signer(seed: Uint8Array): Promise<(data: Bytes) => Promise<Bytes>> {
  const key = await crypto.subtle.importKey(
    "pkcs8",
    concat(PKCS8_ED25519, seed),
    { name: "Ed25519" },
    false,
    ["sign"],
  );
  return async (data) => new Uint8Array(await crypto.subtle.sign("Ed25519", key, data));
}
