import { and, eq } from "drizzle-orm";
import type { Db } from "./client";
import { devices } from "./schema";

export type TrustLevel = "trusted" | "recognized" | "unknown";

/** The thumbprint of the key that signed this request's DPoP proof, or null; evaluated only when needed. */
export type ProvenKey = () => Promise<string | null>;

/**
 * The caller's device trust (DECISIONS D8/D11): a fingerprint the user has not registered is
 * unknown, and so is a key-bound device's fingerprint without a valid proof by its key (the
 * fingerprint alone is what anyone holding the token could copy).
 */
export async function trustLevelOf(
  db: Db,
  userId: string,
  fingerprint: string | null,
  proven: ProvenKey,
): Promise<TrustLevel> {
  if (!fingerprint) return "unknown";
  const row = await db
    .select({ trustLevel: devices.trustLevel, dpopJkt: devices.dpopJkt })
    .from(devices)
    .where(and(eq(devices.userId, userId), eq(devices.deviceFingerprint, fingerprint)))
    .get();
  if (!row) return "unknown";
  if (row.dpopJkt && (await proven()) !== row.dpopJkt) return "unknown";
  return row.trustLevel;
}
