import type { Db } from "../../db/client";
import type { LiveSyncBindings } from "../../db/clock-announce";
import type { EntryTotpRow } from "../../db/schema";
import type { RequestMeta } from "../../kernel/context";
import type { SealedColumn } from "../../db/reseal";
import { seal, unseal, type DataKeys } from "../../lib/crypto";
import { z } from "zod";
import { AppError, ErrorCode, notFound, validationError, zodIssues } from "../../lib/errors";
import { normalizeAlgorithm, remainingSeconds, totpCode } from "../../kernel/totp";
import { recordAudit } from "../audit";
import * as repo from "./repo";
import { Digits, Period, type SetTotpInput } from "./schema";

/** A server-held secret of an entry created before zero-trust TOTP (spec "Versioning" 2). */
export type LegacySecret = { secret: string; algorithm: string; digits: number; period: number };

const BASE32 = /^[A-Z2-7]+=*$/;
const LegacyParams = z.object({ digits: Digits, period: Period });
const legacyAad = (userId: string, passwordId: string) => `entry_totp:${userId}:${passwordId}`;

export function toConfig(row: EntryTotpRow | null) {
  if (!row) return { hasTotp: false };
  const common = { algorithm: row.algorithm, digits: row.digits, period: row.period };
  return row.zeroTrust && row.secretEncrypted
    ? { hasTotp: true, zeroTrust: true, secretEncrypted: row.secretEncrypted, ...common }
    : { hasTotp: true, zeroTrust: false, ...common };
}

export class EntryTotpService {
  constructor(
    private readonly db: Db,
    private readonly dataKey: DataKeys,
    /** The live-sync hubs a committed change tells (clock-announce.ts). */
    private readonly hubs: LiveSyncBindings,
    private readonly clock: () => number = Date.now,
  ) {}

  private async entry(userId: string, passwordId: string) {
    const found = await repo.findEntry(this.db, userId, passwordId);
    if (!found) throw notFound("Password entry");
    return found;
  }

  async get(userId: string, passwordId: string) {
    return toConfig((await this.entry(userId, passwordId)).totp);
  }

  /** Stores the client's ciphertext as given; a legacy server-held secret it replaces is dropped. */
  async set(userId: string, passwordId: string, input: SetTotpInput) {
    const existing = (await this.entry(userId, passwordId)).totp;
    const now = new Date(this.clock()).toISOString();
    await repo.upsert(this.db, this.hubs, {
      passwordId,
      userId,
      zeroTrust: true,
      secretEncrypted: input.secretEncrypted,
      secretSealed: null,
      algorithm: input.algorithm,
      digits: input.digits,
      period: input.period,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    });
  }

  async remove(userId: string, passwordId: string) {
    if (!(await this.entry(userId, passwordId)).totp) throw notFound("TOTP configuration");
    if (
      !(await repo.remove(
        this.db,
        this.hubs,
        userId,
        passwordId,
        new Date(this.clock()).toISOString(),
      ))
    )
      throw notFound("TOTP configuration");
  }

  /** The current code of a legacy entry; zero-trust secrets never reach the server (410). */
  async code(userId: string, passwordId: string, meta: RequestMeta) {
    const row = (await this.entry(userId, passwordId)).totp;
    if (!row) throw notFound("TOTP configuration");
    if (row.zeroTrust || !row.secretSealed) {
      throw new AppError(
        ErrorCode.GONE,
        "This entry's TOTP secret is encrypted on the client; generate the code there (RFC 6238)",
      );
    }
    const algorithm = normalizeAlgorithm(row.algorithm);
    if (!algorithm)
      throw new AppError(ErrorCode.UNPROCESSABLE, "Unsupported TOTP algorithm on this entry");
    const secret = await unseal(this.dataKey, row.secretSealed, legacyAad(userId, passwordId));
    const nowSeconds = this.clock() / 1000;
    const code = await totpCode(
      { secret, algorithm, digits: row.digits, period: row.period },
      nowSeconds,
    );
    await recordAudit(this.db, {
      userId,
      action: "password.totp_code",
      targetType: "password",
      targetId: passwordId,
      meta,
    });
    return { code, remaining: remainingSeconds(nowSeconds, row.period) };
  }

  /**
   * Stores a server-held secret, sealed (DECISIONS D10). The API offers no way to create one: this
   * exists for entries carried over from before zero-trust TOTP (data migration) and for tests.
   */
  async setLegacySecret(userId: string, passwordId: string, legacy: LegacySecret) {
    const secret = legacy.secret.replace(/\s/g, "").toUpperCase();
    if (!BASE32.test(secret) || secret.replace(/=+$/, "").length < 16) {
      throw validationError("Legacy secret must be base32 of at least 80 bits", [
        { field: "secret", message: "must be base32, at least 16 characters" },
      ]);
    }
    const params = LegacyParams.safeParse({ digits: legacy.digits, period: legacy.period });
    if (!params.success) throw validationError("Invalid TOTP parameters", zodIssues(params.error));
    if (!normalizeAlgorithm(legacy.algorithm))
      throw validationError("Unsupported algorithm", [
        { field: "algorithm", message: "must be SHA-1, SHA-256 or SHA-512" },
      ]);
    const existing = (await this.entry(userId, passwordId)).totp;
    const now = new Date(this.clock()).toISOString();
    await repo.upsert(this.db, this.hubs, {
      passwordId,
      userId,
      zeroTrust: false,
      secretEncrypted: null,
      secretSealed: await seal(this.dataKey, secret, legacyAad(userId, passwordId)),
      algorithm: legacy.algorithm,
      digits: legacy.digits,
      period: legacy.period,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    });
  }
}

/** Legacy (server-readable) entry TOTP secrets for the re-seal pass (D10). */
export const legacyTotpSecretsColumn: SealedColumn = {
  table: "password_totp",
  key: "password_id",
  column: "secret_sealed",
  uses: ["user_id"],
  aad: (r) => legacyAad(r.user_id, r.password_id),
};
