import { fromBase64, toBase64 } from "../../kernel/base64";
import { timingSafeEqualStr } from "../../lib/crypto";

/** workerd caps PBKDF2 at 100,000 iterations; the phrase is low-entropy, so use the cap (RFC 8018). */
const ITERATIONS = 100_000;

async function derive(phrase: string, salt: Uint8Array, iterations: number): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(phrase),
    "PBKDF2",
    false,
    ["deriveBits"],
  );
  const bits = await crypto.subtle.deriveBits(
    { name: "PBKDF2", hash: "SHA-256", salt, iterations },
    key,
    256,
  );
  return toBase64(new Uint8Array(bits));
}

export async function hashPhrase(phrase: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  return `pbkdf2-sha256$${ITERATIONS}$${toBase64(salt)}$${await derive(phrase, salt, ITERATIONS)}`;
}

export async function verifyPhrase(phrase: string, stored: string): Promise<boolean> {
  const [scheme, iter, salt, hash] = stored.split("$");
  if (scheme !== "pbkdf2-sha256" || !iter || !salt || !hash) return false;
  return timingSafeEqualStr(await derive(phrase, fromBase64(salt), Number(iter)), hash);
}
