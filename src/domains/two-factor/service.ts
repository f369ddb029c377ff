import type { Db } from "../../db/client";
import type { TwoFactorRow } from "../../db/schema";
import type { RequestMeta } from "../../kernel/context";
import type { SealedColumn } from "../../db/reseal";
import { randomId, seal, sha256Hex, unseal, type DataKeys } from "../../lib/crypto";
import { AppError, ErrorCode } from "../../lib/errors";
import { checkTotp, newTotpSecret, otpauthUri, TOTP_DEFAULTS } from "../../kernel/totp";
import { recordAudit } from "../audit";
import * as repo from "./repo";

export const RECOVERY_CODE_COUNT = 10;
/** DECISIONS D14: ten wrong codes in fifteen minutes lock verification until the window passes. */
export const WRONG_CODE_LIMIT = 10;
export const WRONG_CODE_WINDOW_MS = 15 * 60 * 1000;

/** RFC 4648 base32 alphabet: 32 symbols, so the low five bits of each random byte pick one without bias; ten carry 50 bits. */
const RECOVERY_ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";
const RECOVERY_SHAPE = /^[a-z2-7]{10}$/;

function newRecoveryCode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(10));
  const chars = [...bytes].map((b) => RECOVERY_ALPHABET[b & 31]).join("");
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

function normalizeRecoveryCode(input: string): string {
  return input.toLowerCase().replace(/[\s-]/g, "");
}

/** Hashed with the owner's id so equal codes of two users never share a hash. */
function recoveryHash(userId: string, normalized: string): Promise<string> {
  return sha256Hex(`two_factor_recovery:${userId}:${normalized}`);
}

export const secretAad = (userId: string, enrollmentId: string) =>
  `two_factor:${userId}:${enrollmentId}`;

/** A right code; `confirms` when it was the first code of a pending enrollment, which it confirmed. */
export type CodeCheck =
  | { ok: true; via: "totp"; confirms?: "enabled" | "replaced" }
  | { ok: true; via: "recovery_code"; remaining: number; confirms?: undefined }
  | { ok: false; reused?: true };

/**
 * Why a code was refused, as the error body's `details` say it: a right code whose time step was
 * already taken (RFC 6238 section 5.2: a step is accepted once) is told apart from a wrong one, so
 * the sign-in page can say "wait for the next code" instead of "wrong code". Only someone who
 * already holds the current code can reach that answer, and all it adds is that the step was spent
 * (docs/decisions/auth.md, "2FA: a code used already is said so").
 */
export const CODE_ALREADY_USED = "already_used";

function codeRefused(result: { ok: false; reused?: true }, extra?: Record<string, unknown>) {
  return new AppError(ErrorCode.UNAUTHORIZED, "Invalid or already used code", {
    ...(result.reused ? { details: [{ field: "code", message: CODE_ALREADY_USED }] } : {}),
    ...(extra ? { extra } : {}),
  });
}

export class TwoFactorService {
  constructor(
    private readonly db: Db,
    private readonly dataKey: DataKeys,
    private readonly issuer: string,
    private readonly clock: () => number = Date.now,
  ) {}

  async isEnrolled(userId: string): Promise<boolean> {
    return !!(await repo.find(this.db, userId))?.enrolledAt;
  }

  /**
   * Starts (or restarts) enrollment: a new secret replaces any earlier one and its recovery codes at
   * once. The enrollment stays pending until a code from the new secret is verified.
   */
  async enroll(
    userId: string,
    label: string,
    meta: RequestMeta,
  ): Promise<{ qrCodeUri: string; secret: string; recoveryCodes: string[]; replaced: boolean }> {
    const secret = newTotpSecret();
    const enrollmentId = randomId();
    const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    const hashes = await Promise.all(
      recoveryCodes.map((c) => recoveryHash(userId, normalizeRecoveryCode(c))),
    );
    const previous = await repo.find(this.db, userId);
    await repo.replaceEnrollment(
      this.db,
      {
        userId,
        enrollmentId,
        secretSealed: await seal(this.dataKey, secret, secretAad(userId, enrollmentId)),
        createdAt: new Date(this.clock()).toISOString(),
        enrolledAt: null,
        lastUsedStep: null,
        failedCount: previous?.failedCount ?? 0,
        failedWindowStart: previous?.failedWindowStart ?? 0,
        // A re-enrollment keeps the account under 2FA while the new secret is pending (D20).
        enforced: previous?.enforced ?? 0,
      },
      hashes,
      { userId, action: previous ? "2fa.reenroll" : "2fa.enroll", meta },
    );
    // Over a confirmed second factor, the old secret and recovery codes stop working here, not at
    // the new one's confirmation: that is the moment the owner's authenticator is replaced.
    return {
      qrCodeUri: otpauthUri(this.issuer, label, secret),
      secret,
      recoveryCodes,
      replaced: !!previous?.enrolledAt,
    };
  }

  async status(userId: string) {
    const row = await repo.find(this.db, userId);
    const enrolled = !!row?.enrolledAt;
    return {
      enrolled,
      method: enrolled ? ("totp" as const) : null,
      enrolledAt: row?.enrolledAt ?? null,
      pending: !!row && !enrolled,
      recoveryCodesRemaining: enrolled ? await repo.unusedRecoveryCodes(this.db, userId) : 0,
    };
  }

  /**
   * Checks a code; a right one verifies the sign-in that sent it (D20), the enrollment-confirming
   * code included. Only a code the sign-in was asked for counts as a fresh sign-in for step-up:
   * the one confirming an enrollment proves the session holds the secret it was just handed, which
   * a stolen session does too, so it refreshes nothing. `confirms` says what a confirmation did.
   */
  async verify(userId: string, code: string, meta: RequestMeta, signIn?: string) {
    const result = await this.check(userId, code, meta);
    if (!result.ok) throw codeRefused(result, { verified: false });
    if (signIn)
      await repo.recordSignIn(
        this.db,
        userId,
        signIn,
        Math.floor(this.clock() / 1000),
        !result.confirms,
      );
    const answer =
      result.via === "recovery_code"
        ? { verified: true as const, recoveryCodesRemaining: result.remaining }
        : { verified: true as const };
    return { answer, confirms: result.confirms };
  }

  /**
   * A stolen session must not swap the second factor for its own: the current one must be shown.
   * Replacing is not a sign-in, so the code verifies nothing new and refreshes nothing.
   */
  async requireCurrentCode(userId: string, code: string | undefined, meta: RequestMeta) {
    if (!code)
      throw new AppError(
        ErrorCode.UNAUTHORIZED,
        "A current code is required to replace two-factor authentication",
      );
    const result = await this.check(userId, code, meta);
    if (!result.ok) throw codeRefused(result);
  }

  async disable(userId: string, code: string, meta: RequestMeta) {
    const result = await this.check(userId, code, meta);
    if (!result.ok) throw codeRefused(result);
    await repo.remove(this.db, userId, {
      userId,
      action: "2fa.disable",
      meta,
      details: { via: result.via },
    });
  }

  /**
   * Checks a TOTP code (current step plus one either side, never a step already used) or, once
   * enrollment is confirmed, a recovery code. Each check first takes an attempt from the wrong-code
   * window, so while the window is spent even a right code is refused (DECISIONS D14).
   */
  async check(userId: string, code: string, meta: RequestMeta): Promise<CodeCheck> {
    const row = await repo.find(this.db, userId);
    if (!row)
      throw new AppError(ErrorCode.UNPROCESSABLE, "Two-factor authentication is not enrolled");
    const nowMs = this.clock();
    if (
      !(await repo.reserveAttempt(this.db, userId, nowMs, WRONG_CODE_WINDOW_MS, WRONG_CODE_LIMIT))
    ) {
      const current = await repo.find(this.db, userId);
      if (!current)
        throw new AppError(ErrorCode.UNPROCESSABLE, "Two-factor authentication is not enrolled");
      const retryAfter = Math.max(
        1,
        Math.ceil((current.failedWindowStart + WRONG_CODE_WINDOW_MS - nowMs) / 1000),
      );
      throw new AppError(ErrorCode.RATE_LIMITED, "Too many wrong codes; try again later", {
        headers: { "Retry-After": String(retryAfter) },
      });
    }
    const now = new Date(nowMs).toISOString();
    const matched = await this.match(row, code, nowMs, now);
    if (matched.ok) await repo.releaseAttempt(this.db, userId);
    // A pending enrollment over an account already in force (D20's `enforced`) replaces its factor.
    const result: CodeCheck =
      matched.ok && matched.via === "totp" && !row.enrolledAt
        ? { ...matched, confirms: row.enforced ? "replaced" : "enabled" }
        : matched;
    const action = !result.ok
      ? "2fa.code_rejected"
      : result.via === "recovery_code"
        ? "2fa.recovery_code_used"
        : result.confirms
          ? "2fa.enabled"
          : null;
    if (action) await recordAudit(this.db, { userId, action, meta });
    return result;
  }

  private async match(
    row: TwoFactorRow,
    code: string,
    nowMs: number,
    now: string,
  ): Promise<CodeCheck> {
    if (/^\d+$/.test(code)) {
      const secret = await unseal(
        this.dataKey,
        row.secretSealed,
        secretAad(row.userId, row.enrollmentId),
      );
      const totp = await checkTotp({ secret, ...TOTP_DEFAULTS }, code, nowMs / 1000);
      if (!totp.valid) return { ok: false };
      const fresh = await repo.markStepUsed(
        this.db,
        row.userId,
        row.enrollmentId,
        totp.timeStep,
        now,
      );
      return fresh ? { ok: true, via: "totp" } : { ok: false, reused: true };
    }
    const normalized = normalizeRecoveryCode(code);
    if (!row.enrolledAt || !RECOVERY_SHAPE.test(normalized)) return { ok: false };
    if (
      !(await repo.consumeRecoveryCode(
        this.db,
        row.userId,
        await recoveryHash(row.userId, normalized),
        now,
      ))
    )
      return { ok: false };
    return {
      ok: true,
      via: "recovery_code",
      remaining: await repo.unusedRecoveryCodes(this.db, row.userId),
    };
  }
}

/** Account 2FA secrets for the re-seal pass (D10). */
export const twoFactorSecretsColumn: SealedColumn = {
  table: "two_factor",
  key: "user_id",
  column: "secret_sealed",
  uses: ["enrollment_id"],
  aad: (r) => secretAad(r.user_id, r.enrollment_id),
};
