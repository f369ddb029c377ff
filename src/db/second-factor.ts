import { and, eq, lt, sql } from "drizzle-orm";
import type { Db } from "./client";
import { twoFactor, twoFactorSignIns } from "./schema";

/** A verified sign-in is kept this long after its last code; longer than any provider session. */
export const SIGN_IN_RECORD_SECONDS = 30 * 24 * 3600;

export type SignInState = {
  /** The account asks every sign-in for a code (D20). */
  required: boolean;
  /** Epoch seconds of the last code accepted for this sign-in, or null. */
  verifiedAt: number | null;
  /** Epoch seconds of the last code that makes this sign-in fresh for step-up, or null. */
  freshAt: number | null;
};

/** One indexed read per request: the account's 2FA row joined to this sign-in's record. */
export async function signInState(db: Db, userId: string, signIn: string): Promise<SignInState> {
  const row = await db
    .select({
      enforced: twoFactor.enforced,
      verifiedAt: twoFactorSignIns.verifiedAt,
      freshAt: twoFactorSignIns.freshAt,
    })
    .from(twoFactor)
    .leftJoin(
      twoFactorSignIns,
      and(eq(twoFactorSignIns.userId, twoFactor.userId), eq(twoFactorSignIns.signIn, signIn)),
    )
    .where(eq(twoFactor.userId, userId))
    .get();
  return {
    required: row?.enforced === 1,
    verifiedAt: row?.verifiedAt ?? null,
    freshAt: row?.freshAt ?? null,
  };
}

/**
 * Statements that record a code accepted for a sign-in and forget the user's long-gone ones. `fresh`
 * says whether the code also counts as a fresh sign-in for step-up (D20: not the one confirming an
 * enrollment); a code that does not leaves an earlier fresh time as it was.
 */
export function markSignInVerified(
  db: Db,
  userId: string,
  signIn: string,
  nowSeconds: number,
  fresh: boolean,
) {
  return [
    db
      .insert(twoFactorSignIns)
      .values({ userId, signIn, verifiedAt: nowSeconds, freshAt: fresh ? nowSeconds : null })
      .onConflictDoUpdate({
        target: [twoFactorSignIns.userId, twoFactorSignIns.signIn],
        set: {
          verifiedAt: sql`max(${twoFactorSignIns.verifiedAt}, excluded.verified_at)`,
          freshAt: sql`max(coalesce(${twoFactorSignIns.freshAt}, excluded.fresh_at), coalesce(excluded.fresh_at, ${twoFactorSignIns.freshAt}))`,
        },
      }),
    db
      .delete(twoFactorSignIns)
      .where(
        and(
          eq(twoFactorSignIns.userId, userId),
          lt(twoFactorSignIns.verifiedAt, nowSeconds - SIGN_IN_RECORD_SECONDS),
        ),
      ),
  ] as const;
}

export function forgetSignIns(db: Db, userId: string) {
  return db.delete(twoFactorSignIns).where(eq(twoFactorSignIns.userId, userId));
}
