import { CompactEncrypt, importJWK } from "jose";
import { z } from "zod";

/** A P-256 public key as a JWK; a private part is refused so a client cannot leak its own key here. */
export const ClientPublicKey = z
  .object({
    kty: z.literal("EC"),
    crv: z.literal("P-256"),
    x: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
    y: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
    d: z.undefined({ message: "must be a public key" }).optional(),
  })
  .loose()
  .refine((k) => !("d" in k), { message: "must be a public key", path: ["d"] });

/** Seals the new password to the client's key: compact JWE, ECDH-ES + A256GCM (DECISIONS D8, D14). */
export async function sealToClient(jwk: JsonWebKey, plaintext: string): Promise<string> {
  const key = await importJWK({ kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y }, "ECDH-ES");
  return new CompactEncrypt(new TextEncoder().encode(plaintext))
    .setProtectedHeader({ alg: "ECDH-ES", enc: "A256GCM" })
    .encrypt(key);
}
