import { eachShard } from "../../db/client";
import type { Bindings } from "../../env";
import { loadConfig } from "../../env";
import { logJson } from "../../lib/log";
import { expireTrash, purgeTombstones } from "../passwords";
import { CURSOR_MAX_AGE_MS } from "./service";

const CHUNK = 500;
const MAX_CHUNKS = 200;

/**
 * Scheduled purge: first the trash's entries older than TRASH_RETENTION_DAYS lose their ciphertext
 * and attachments (they become bare tombstones); then bare tombstones older than the 30-day
 * cursor window go. A cursor that could still
 * need a purged tombstone is older than the window, and such a pull gets a full sync (D13).
 * Chunked so that one run never holds a database in one long statement; shard by shard (docs/decisions/scale.md, "Scale: shards, a directory, many databases"),
 * each with its own chunk budget, so a large shard does not starve the others.
 */
export async function purgeExpiredTombstones(env: Bindings, nowMs = Date.now()): Promise<number> {
  const expired = await expireTrash(env, loadConfig(env).TRASH_RETENTION_DAYS, nowMs);
  logJson("info", "expired trash purged", { purged: expired });
  const before = nowMs - CURSOR_MAX_AGE_MS;
  let total = 0;
  for (const { db } of eachShard(env)) {
    for (let i = 0; i < MAX_CHUNKS; i++) {
      const n = await purgeTombstones(db, before, CHUNK);
      total += n;
      if (n < CHUNK) break;
    }
  }
  return total;
}
