// Web Push application server keys (RFC 8292): a P-256 key pair, each half base64url. The private
// scalar is always written as 32 bytes: Node's getPrivateKey() drops leading zero bytes, so one
// key in 256 came out as 31 bytes, which the worker's configuration check (src/env.ts) refuses,
// and a server given it never starts.
import { createECDH } from "node:crypto";

export function vapidKeys() {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  return {
    publicKey: ecdh.getPublicKey().toString("base64url"),
    privateKey: Buffer.from(ecdh.getPrivateKey().toString("hex").padStart(64, "0"), "hex").toString(
      "base64url",
    ),
  };
}

/** Whether a stored private key is whole (a checkout's .dev.vars from before the padding may not be). */
export const isWholeVapidKey = (privateKey) => Buffer.from(privateKey, "base64url").length === 32;
