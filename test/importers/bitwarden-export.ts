/**
 * Writes a Bitwarden password-protected export the way its documentation describes (PBKDF2-SHA256
 * master key, HKDF-Expand "enc"/"mac", AES-256-CBC with HMAC-SHA256 EncStrings of type 2), so the
 * importer is tested against a file made here rather than a copied one.
 */
const enc = new TextEncoder();
const b64 = (b: ArrayBuffer | Uint8Array) => btoa(String.fromCharCode(...new Uint8Array(b)));

async function hmac(key: Uint8Array<ArrayBuffer>, data: Uint8Array<ArrayBuffer>) {
  const k = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", k, data));
}

export async function protectedBitwardenExport(json: string, password: string, iterations: number): Promise<string> {
  const salt = b64(crypto.getRandomValues(new Uint8Array(16)));
  const base = await crypto.subtle.importKey("raw", enc.encode(password), "PBKDF2", false, ["deriveBits"]);
  const master = new Uint8Array(await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt: enc.encode(salt), iterations }, base, 256));
  const encKey = await hmac(master, new Uint8Array([...enc.encode("enc"), 1]));
  const macKey = await hmac(master, new Uint8Array([...enc.encode("mac"), 1]));
  const aes = await crypto.subtle.importKey("raw", encKey, "AES-CBC", false, ["encrypt"]);
  const encString = async (text: string) => {
    const iv = crypto.getRandomValues(new Uint8Array(16));
    const ct = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-CBC", iv }, aes, enc.encode(text)));
    const mac = await hmac(macKey, new Uint8Array([...iv, ...ct]));
    return `2.${b64(iv)}|${b64(ct)}|${b64(mac)}`;
  };
  return JSON.stringify({ encrypted: true, passwordProtected: true, salt, kdfType: 0, kdfIterations: iterations, encKeyValidation_DO_NOT_EDIT: await encString(crypto.randomUUID()), data: await encString(json) });
}
