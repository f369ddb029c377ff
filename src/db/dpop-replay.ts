import { and, eq, lt } from "drizzle-orm";
import type { Db } from "./client";
import { dpopProofs } from "./schema";

/**
 * Takes a DPoP proof once (RFC 9449 section 11.1): true the first time this user's store sees the
 * proof, false for a replay. One batch, one round trip to the user's shard: the insert that says
 * whether the proof is new, and the removal of the user's proofs past their acceptance window (a
 * removed proof fails its own time checks, so forgetting it lets nothing through).
 */
export async function takeProofOnce(
  db: Db,
  userId: string,
  proofId: string,
  expiresAt: number,
  nowSeconds: number,
): Promise<boolean> {
  const [inserted] = await db.batch([
    db
      .insert(dpopProofs)
      .values({ userId, proofId, expiresAt })
      .onConflictDoNothing()
      .returning({ proofId: dpopProofs.proofId }),
    db
      .delete(dpopProofs)
      .where(and(eq(dpopProofs.userId, userId), lt(dpopProofs.expiresAt, nowSeconds))),
  ]);
  return inserted.length === 1;
}
