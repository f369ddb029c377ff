import { eachShard, type Db } from "../../db/client";
import type { LiveSyncBindings } from "../../db/clock-announce";
import type { Bindings } from "../../env";
import { AppError, ErrorCode, notFound } from "../../lib/errors";
import type { VaultLimits } from "./repo";
import { toEntry } from "./service";
import * as trash from "./trash";

/** Ids purged per statement: D1 binds at most 100 parameters, and one purge binds the ids twice. */
const CHUNK = 40;
/** Chunks one scheduled run takes per database, so a large shard cannot hold the run. */
const MAX_CHUNKS = 100;

const notInTrash = () => notFound("Password entry not found");

/**
 * Purges these trashed entries of one owner: the attachments' objects leave R2 first, then the
 * rows go in one transaction. A failure between the two leaves rows whose objects are gone, and
 * the next purge (the person's or the schedule's) deletes them again (an R2 delete of a missing
 * key succeeds), so nothing is left in R2 without a row.
 */
async function purge(
  db: Db,
  bucket: R2Bucket,
  userId: string,
  ids: string[],
  at: string,
): Promise<number> {
  const keys = await trash.attachmentKeys(db, ids);
  if (keys.length) await bucket.delete(keys);
  return trash.purgeTrashed(db, userId, ids, at);
}

export class TrashService {
  constructor(
    private readonly db: Db,
    private readonly bucket: R2Bucket,
    private readonly limits: VaultLimits,
    private readonly hubs: LiveSyncBindings,
  ) {}

  async list(userId: string, page: number, limit: number, retentionDays: number) {
    const { rows, total } = await trash.listTrash(this.db, userId, (page - 1) * limit, limit);
    return {
      data: rows.map(toEntry),
      pagination: { page, limit, total },
      retention_days: retentionDays,
    };
  }

  async restore(userId: string, id: string) {
    const at = new Date().toISOString();
    if (await trash.restoreTrashed(this.db, this.hubs, userId, id, this.limits, at))
      return { id, updated_at: at };
    if (!(await trash.findTrashed(this.db, userId, id))) throw notInTrash();
    throw new AppError(
      ErrorCode.SERVICE_UNAVAILABLE,
      "Password limit exceeded (entries or storage)",
    );
  }

  async purgeOne(userId: string, id: string): Promise<void> {
    if (!(await trash.findTrashed(this.db, userId, id))) throw notInTrash();
    await purge(this.db, this.bucket, userId, [id], new Date().toISOString());
  }

  /** Every trashed entry of the user, by chunks; returns how many went. */
  async empty(userId: string): Promise<number> {
    const at = new Date().toISOString();
    let total = 0;
    for (;;) {
      const ids = await trash.trashedIds(this.db, userId, CHUNK);
      if (ids.length === 0) return total;
      const n = await purge(this.db, this.bucket, userId, ids, at);
      total += n;
      // Nothing purged though ids were there: they were restored meanwhile; stop rather than spin.
      if (n === 0) return total;
    }
  }
}

/**
 * The scheduled half: entries deleted more than `retentionDays` ago leave the trash on every
 * shard, their attachments with them. Returns how many were purged.
 */
export async function expireTrash(
  env: Bindings,
  retentionDays: number,
  nowMs = Date.now(),
): Promise<number> {
  const before = new Date(nowMs - retentionDays * 24 * 60 * 60 * 1000).toISOString();
  const at = new Date(nowMs).toISOString();
  let total = 0;
  for (const { db } of eachShard(env)) {
    for (let i = 0; i < MAX_CHUNKS; i++) {
      const rows = await trash.expiredTrash(db, before, CHUNK);
      const owners = new Map<string, string[]>();
      for (const r of rows) owners.set(r.userId, [...(owners.get(r.userId) ?? []), r.id]);
      for (const [userId, ids] of owners)
        total += await purge(db, env.ATTACHMENTS, userId, ids, at);
      if (rows.length < CHUNK) break;
    }
  }
  return total;
}
