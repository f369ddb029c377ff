import { and, count, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { twoFactor, twoFactorRecoveryCodes, type TwoFactorRow } from "../../db/schema";
import { auditInsert, type AuditInput } from "../audit";
import { rowsChanged } from "../../db/d1";
import { forgetSignIns, markSignInVerified } from "../../db/second-factor";

export async function find(db: Db, userId: string): Promise<TwoFactorRow | undefined> {
  return db.select().from(twoFactor).where(eq(twoFactor.userId, userId)).get();
}

/** Replaces any earlier secret and recovery codes in one transaction. */
export async function replaceEnrollment(
  db: Db,
  row: TwoFactorRow,
  codeHashes: string[],
  audit: AuditInput,
): Promise<void> {
  const { userId, ...rest } = row;
  await db.batch([
    db.delete(twoFactorRecoveryCodes).where(eq(twoFactorRecoveryCodes.userId, userId)),
    db.insert(twoFactor).values(row).onConflictDoUpdate({ target: twoFactor.userId, set: rest }),
    db.insert(twoFactorRecoveryCodes).values(
      codeHashes.map((codeHash) => ({
        id: crypto.randomUUID(),
        userId,
        codeHash,
        usedAt: null,
        createdAt: row.createdAt,
      })),
    ),
    auditInsert(db, audit),
  ]);
}

/**
 * Takes one of the window's attempts before a code is checked, so concurrent guesses cannot run past
 * the limit: the count and the check are one statement. Returns false while the user is locked out.
 */
export async function reserveAttempt(
  db: Db,
  userId: string,
  nowMs: number,
  windowMs: number,
  max: number,
): Promise<boolean> {
  const expired = sql`${twoFactor.failedWindowStart} <= ${nowMs - windowMs}`;
  const rows = await db
    .update(twoFactor)
    .set({
      failedCount: sql`CASE WHEN ${expired} THEN 1 ELSE ${twoFactor.failedCount} + 1 END`,
      failedWindowStart: sql`CASE WHEN ${expired} THEN ${nowMs} ELSE ${twoFactor.failedWindowStart} END`,
    })
    .where(
      and(eq(twoFactor.userId, userId), sql`(${expired} OR ${twoFactor.failedCount} < ${max})`),
    )
    .returning({ n: twoFactor.failedCount });
  return rows.length > 0;
}

/** A right code gives its reserved attempt back: only wrong codes count toward the lockout. */
export async function releaseAttempt(db: Db, userId: string): Promise<void> {
  await db
    .update(twoFactor)
    .set({ failedCount: sql`max(${twoFactor.failedCount} - 1, 0)` })
    .where(eq(twoFactor.userId, userId));
}

/**
 * Records the time step of an accepted code unless that step (or a later one) was used already;
 * the first accepted code also confirms a pending enrollment. False means a replay.
 */
export async function markStepUsed(
  db: Db,
  userId: string,
  enrollmentId: string,
  step: number,
  now: string,
): Promise<boolean> {
  const result = await db
    .update(twoFactor)
    .set({
      lastUsedStep: step,
      enrolledAt: sql`coalesce(${twoFactor.enrolledAt}, ${now})`,
      enforced: 1,
    })
    .where(
      and(
        eq(twoFactor.userId, userId),
        eq(twoFactor.enrollmentId, enrollmentId),
        sql`(${twoFactor.lastUsedStep} IS NULL OR ${twoFactor.lastUsedStep} < ${step})`,
      ),
    )
    .run();
  return rowsChanged(result) > 0;
}

/** Spends a recovery code; false when it is unknown or already spent. */
export async function consumeRecoveryCode(
  db: Db,
  userId: string,
  codeHash: string,
  now: string,
): Promise<boolean> {
  const result = await db
    .update(twoFactorRecoveryCodes)
    .set({ usedAt: now })
    .where(
      and(
        eq(twoFactorRecoveryCodes.userId, userId),
        eq(twoFactorRecoveryCodes.codeHash, codeHash),
        isNull(twoFactorRecoveryCodes.usedAt),
      ),
    )
    .run();
  return rowsChanged(result) > 0;
}

export async function unusedRecoveryCodes(db: Db, userId: string): Promise<number> {
  const row = await db
    .select({ n: count() })
    .from(twoFactorRecoveryCodes)
    .where(and(eq(twoFactorRecoveryCodes.userId, userId), isNull(twoFactorRecoveryCodes.usedAt)))
    .get();
  return row?.n ?? 0;
}

/** A code was accepted for this sign-in: it is verified (D20); `fresh` when it also counts for step-up. */
export async function recordSignIn(
  db: Db,
  userId: string,
  signIn: string,
  nowSeconds: number,
  fresh: boolean,
): Promise<void> {
  await db.batch(markSignInVerified(db, userId, signIn, nowSeconds, fresh));
}

export async function remove(db: Db, userId: string, audit: AuditInput): Promise<void> {
  await db.batch([
    forgetSignIns(db, userId),
    db.delete(twoFactorRecoveryCodes).where(eq(twoFactorRecoveryCodes.userId, userId)),
    db.delete(twoFactor).where(eq(twoFactor.userId, userId)),
    auditInsert(db, audit),
  ]);
}
