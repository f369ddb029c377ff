import { directoryDb, eachShard } from "../../db/client";
import type { Bindings } from "../../env";
import { purgeEnded, purgeLinks } from "./repo";

/** How long an ended share's row (service, times, failure reason; no credentials) stays listed. */
export const SESSION_SHARE_RETENTION_DAYS = 30;
const ENDED = ["revoked", "expired", "failed"] as const;
const CHUNK = 500;
const MAX_CHUNKS = 200;

/** Scheduled: deletes ended shares older than the retention period, in chunks, shard by shard. */
export async function purgeEndedSessionShares(env: Bindings, nowMs = Date.now()): Promise<number> {
  const before = new Date(nowMs - SESSION_SHARE_RETENTION_DAYS * 24 * 60 * 60 * 1000).toISOString();
  let total = 0;
  for (const { db } of eachShard(env)) {
    for (let i = 0; i < MAX_CHUNKS; i++) {
      const n = await purgeEnded(db, ENDED, before, CHUNK);
      total += n;
      if (n < CHUNK) break;
    }
  }
  // A link outlives its row by at most the time between expiry and end; a token of a purged share
  // then finds no row and is 404, as before.
  for (let i = 0; i < MAX_CHUNKS; i++) {
    if ((await purgeLinks(directoryDb(env), before, CHUNK)) < CHUNK) break;
  }
  return total;
}
