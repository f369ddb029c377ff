import { globalDb } from "../../db/client";
import type { Bindings } from "../../env";
import { purgeEnded } from "./repo";

/** How long an ended share's row (service, times, failure reason; no credentials) stays listed. */
export const SESSION_SHARE_RETENTION_DAYS = 30;
const ENDED = ["revoked", "expired", "failed"] as const;
const CHUNK = 500;
const MAX_CHUNKS = 200;

/** Scheduled: deletes ended shares older than the retention period, in chunks. */
export async function purgeEndedSessionShares(env: Bindings, nowMs = Date.now()): Promise<number> {
  const before = new Date(nowMs - SESSION_SHARE_RETENTION_DAYS * 24 * 60 * 60 * 1000).toISOString();
  let total = 0;
  for (let i = 0; i < MAX_CHUNKS; i++) {
    const n = await purgeEnded(globalDb(env), ENDED, before, CHUNK);
    total += n;
    if (n < CHUNK) break;
  }
  return total;
}
