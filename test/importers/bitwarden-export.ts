/**
 * Writes a Bitwarden password-protected export the way its documentation describes (PBKDF2-SHA256
 * master key, HKDF-Expand "enc"/"mac", AES-256-CBC with HMAC-SHA256 EncStrings of type 2), so the
 * importer is tested against a file made here rather than a copied one.
 */
const enc = new TextEncoder();
const b64 = (b: ArrayBuffer | Uint8Array) => btoa(String.fromCharCode(...new Uint8Array(b)));

async function hmac(key: Uint8Array<ArrayBuffer>, data: Uint8Array<ArrayBuffer>) {
  const k = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", k, data));
}

/** Argon2id settings of an export (memory in MiB, as Bitwarden's `kdfMemory`); PBKDF2 without them. */
export type Argon2Settings = { memory: number; parallelism: number };

/** The master key: PBKDF2-SHA256 of the password with the salt, or Argon2id with the salt's SHA-256 (as Bitwarden's key service does). */
async function masterKey(
  password: string,
  salt: string,
  iterations: number,
  argon2?: Argon2Settings,
): Promise<Uint8Array<ArrayBuffer>> {
  if (argon2) {
    const { argon2id } = await import("hash-wasm");
    const saltHash = new Uint8Array(await crypto.subtle.digest("SHA-256", enc.encode(salt)));
    return Uint8Array.from(
      await argon2id({
        password,
        salt: saltHash,
        iterations,
        memorySize: argon2.memory * 1024,
        parallelism: argon2.parallelism,
        hashLength: 32,
        outputType: "binary",
      }),
    );
  }
  const base = await crypto.subtle.importKey("raw", enc.encode(password), "PBKDF2", false, [
    "deriveBits",
  ]);
  return new Uint8Array(
    await crypto.subtle.deriveBits(
      { name: "PBKDF2", hash: "SHA-256", salt: enc.encode(salt), iterations },
      base,
      256,
    ),
  );
}

export async function protectedBitwardenExport(
  json: string,
  password: string,
  iterations: number,
  argon2?: Argon2Settings,
): Promise<string> {
  const salt = b64(crypto.getRandomValues(new Uint8Array(16)));
  const master = await masterKey(password, salt, iterations, argon2);
  const encKey = await hmac(master, new Uint8Array([...enc.encode("enc"), 1]));
  const macKey = await hmac(master, new Uint8Array([...enc.encode("mac"), 1]));
  const aes = await crypto.subtle.importKey("raw", encKey, "AES-CBC", false, ["encrypt"]);
  const encString = async (text: string) => {
    const iv = crypto.getRandomValues(new Uint8Array(16));
    const ct = new Uint8Array(
      await crypto.subtle.encrypt({ name: "AES-CBC", iv }, aes, enc.encode(text)),
    );
    const mac = await hmac(macKey, new Uint8Array([...iv, ...ct]));
    return `2.${b64(iv)}|${b64(ct)}|${b64(mac)}`;
  };
  const kdf = argon2
    ? {
        kdfType: 1,
        kdfIterations: iterations,
        kdfMemory: argon2.memory,
        kdfParallelism: argon2.parallelism,
      }
    : { kdfType: 0, kdfIterations: iterations };
  return JSON.stringify({
    encrypted: true,
    passwordProtected: true,
    salt,
    ...kdf,
    encKeyValidation_DO_NOT_EDIT: await encString(crypto.randomUUID()),
    data: await encString(json),
  });
}
