import { directoryDb, eachShard } from "../../db/client";
import type { Bindings } from "../../env";
import { logJson } from "../../lib/log";
import * as repo from "./repo";
import { MAX_FAILED_ATTEMPTS, MAX_FAILED_CODES } from "./schema";

/** A delivery counted just before the end streams its bytes within this; the purge waits it out. */
export const PURGE_GRACE_MS = 10 * 60 * 1000;
/** How long an ended link stays in its owner's list (without content) after its expiry. */
export const LINK_RETENTION_DAYS = 30;
const CHUNK = 100;
const MAX_CHUNKS = 50;

/**
 * Scheduled, shard by shard: deletes the ciphertext of links that ended (expired, used up, revoked,
 * locked), then the rows and directory pointers of links that expired past the retention period.
 * The R2 object goes before the row is marked, so a crash between leaves a row the next run retries.
 */
export async function purgeSecureLinks(
  env: Bindings,
  nowMs = Date.now(),
): Promise<{ content: number; rows: number }> {
  const grace = new Date(nowMs - PURGE_GRACE_MS).toISOString();
  const retention = new Date(nowMs - LINK_RETENTION_DAYS * 24 * 60 * 60 * 1000).toISOString();
  let content = 0;
  let rows = 0;
  for (const { db } of eachShard(env)) {
    for (let i = 0; i < MAX_CHUNKS; i++) {
      const ended = await repo.purgeable(
        db,
        grace,
        { passphrases: MAX_FAILED_ATTEMPTS, codes: MAX_FAILED_CODES },
        CHUNK,
      );
      if (ended.length === 0) break;
      const gone: string[] = [];
      for (const link of ended) {
        try {
          await env.ATTACHMENTS.delete(link.r2Key);
          gone.push(link.id);
        } catch {
          logJson("error", "secure link content could not be purged; will retry", {
            linkId: link.id,
          });
        }
      }
      await repo.markPurged(db, gone, new Date(nowMs).toISOString());
      content += gone.length;
      if (ended.length < CHUNK || gone.length === 0) break;
    }
    const codesBefore = new Date(nowMs - 24 * 60 * 60 * 1000).toISOString();
    for (let i = 0; i < MAX_CHUNKS; i++) {
      if ((await repo.deleteOldCodes(db, codesBefore, CHUNK)) < CHUNK) break;
    }
    for (let i = 0; i < MAX_CHUNKS; i++) {
      const n = await repo.deleteExpiredRows(db, retention, CHUNK);
      rows += n;
      if (n < CHUNK) break;
    }
  }
  for (let i = 0; i < MAX_CHUNKS; i++) {
    if ((await repo.deleteExpiredPointers(directoryDb(env), retention, CHUNK)) < CHUNK) break;
  }
  return { content, rows };
}
