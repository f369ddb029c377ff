import { and, eq } from "drizzle-orm";
import type { Db } from "./client";
import { devices } from "./schema";

export type TrustLevel = "trusted" | "recognized" | "unknown";

/** The caller's device trust (DECISIONS D8/D11): a fingerprint the user has not registered is unknown. */
export async function trustLevelOf(db: Db, userId: string, fingerprint: string | null): Promise<TrustLevel> {
  if (!fingerprint) return "unknown";
  const row = await db
    .select({ trustLevel: devices.trustLevel })
    .from(devices)
    .where(and(eq(devices.userId, userId), eq(devices.deviceFingerprint, fingerprint)))
    .get();
  return row?.trustLevel ?? "unknown";
}
