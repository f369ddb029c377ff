import { dataKeyId, seal, unseal } from "../lib/crypto";
import type { Db } from "./client";
import { rawD1 } from "./d1";
import { logJson } from "../lib/log";

/**
 * One column of server-held secrets (D10) and how its values are bound: the domain that owns the
 * column names it and gives the AAD it seals under, from the row's own columns.
 */
export type SealedColumn = {
  table: string;
  /** The primary key, for a stable keyset walk. */
  key: string;
  column: string;
  /** The columns `aad` reads. */
  uses: string[];
  aad: (row: Record<string, string>) => string;
};

export type ResealResult = { resealed: number; failed: number };

/**
 * Moves the values of one sealed column from previous data keys to the current one, a chunk at a
 * time, walking the primary key so that a value that will not open (it is logged by table only,
 * never by value) cannot stall the pass. Only values under a key id of `keys[1..]` are read: a
 * value under an unknown id stays as it is, and opening it keeps failing until its key is
 * configured again. Each write is conditional on the value being unchanged, so a concurrent
 * re-seal by the owner's own request wins.
 */
export async function resealColumn(
  db: Db,
  keys: readonly string[],
  spec: SealedColumn,
  chunk = 100,
  maxChunks = 20,
): Promise<ResealResult> {
  const previous = await Promise.all(keys.slice(1).map(dataKeyId));
  const out = { resealed: 0, failed: 0 };
  if (previous.length === 0) return out;
  const d1 = rawD1(db);
  const marks = previous.map(() => "?").join(", ");
  const cols = [spec.key, spec.column, ...spec.uses.filter((c) => c !== spec.key)].join(", ");
  let after = "";
  for (let n = 0; n < maxChunks; n++) {
    const { results } = await d1
      .prepare(
        `SELECT ${cols} FROM ${spec.table} WHERE ${spec.key} > ? AND json_valid(${spec.column}) AND json_extract(${spec.column}, '$.kid') IN (${marks}) ORDER BY ${spec.key} LIMIT ?`,
      )
      .bind(after, ...previous, chunk)
      .all<Record<string, string>>();
    for (const row of results) {
      after = row[spec.key];
      try {
        const aad = spec.aad(row);
        const fresh = await seal(keys, await unseal(keys, row[spec.column], aad), aad);
        await d1
          .prepare(
            `UPDATE ${spec.table} SET ${spec.column} = ? WHERE ${spec.key} = ? AND ${spec.column} = ?`,
          )
          .bind(fresh, row[spec.key], row[spec.column])
          .run();
        out.resealed++;
      } catch {
        out.failed++;
      }
    }
    if (results.length < chunk) break;
  }
  if (out.failed)
    logJson("error", "sealed values did not open for re-sealing", {
      table: spec.table,
      column: spec.column,
      failed: out.failed,
    });
  return out;
}
