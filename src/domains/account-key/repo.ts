import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { rawD1 } from "../../db/d1";
import { accountKeys, type AccountKeyRow } from "../../db/schema";

export async function read(db: Db, userId: string): Promise<AccountKeyRow | undefined> {
  return db.select().from(accountKeys).where(eq(accountKeys.userId, userId)).get();
}

export type NewWrap = {
  keyVersion: number;
  revision: number;
  kdfIterations: number;
  wrappedKey: string;
};

/**
 * Compare-and-set in one statement each: the first wrap only where none is, a later one only over
 * the revision before it and never below the stored key version. False when the row was not the
 * one the caller read (another device wrote first, or the write is stale).
 */
export async function write(db: Db, userId: string, w: NewWrap, at: string): Promise<boolean> {
  const d1 = rawD1(db);
  const got =
    w.revision === 1
      ? await d1
          .prepare(
            `INSERT INTO account_keys (user_id, key_version, revision, kdf_iterations, wrapped_key, updated_at)
             VALUES (?1, ?2, 1, ?3, ?4, ?5) ON CONFLICT (user_id) DO NOTHING RETURNING user_id`,
          )
          .bind(userId, w.keyVersion, w.kdfIterations, w.wrappedKey, at)
          .first()
      : await d1
          .prepare(
            `UPDATE account_keys SET key_version = ?2, revision = ?3, kdf_iterations = ?4, wrapped_key = ?5, updated_at = ?6
             WHERE user_id = ?1 AND revision = ?3 - 1 AND key_version <= ?2 RETURNING user_id`,
          )
          .bind(userId, w.keyVersion, w.revision, w.kdfIterations, w.wrappedKey, at)
          .first();
  return got !== null;
}
