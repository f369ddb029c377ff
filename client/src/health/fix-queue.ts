/**
 * "Fix all"'s queue kept on this device while it runs, so a closed tab does not lose it: the
 * entries' ids in order and each one's outcome, nothing of a password (ids, a result, the reason a
 * reset failed). Kept in the local store's metadata under the user; removed when the queue ends or
 * the person dismisses it. The resets themselves are the reset manager's and are saved at the next
 * unlock as any reset is; this only remembers which were still to do.
 */
import type { LocalDb } from "../../../core/store";

export type KeptOutcome = { id: string; result: "fixed" | "failed" | "cancelled"; why?: string };
export type KeptQueue = { ids: string[]; outcomes: KeptOutcome[] };

const keyOf = (userId: string) => `health:fix-queue:${userId}`;

/** The ids of a kept queue with no outcome yet (the one under way when the tab closed among them). */
export const leftIn = (q: KeptQueue): string[] =>
  q.ids.filter((id) => !q.outcomes.some((o) => o.id === id));

/** The interrupted queue, or null when there is none (or nothing of it is left). */
export async function keptQueue(db: LocalDb, userId: string): Promise<KeptQueue | null> {
  const q = await db.meta<KeptQueue | null>(keyOf(userId));
  return q && Array.isArray(q.ids) && Array.isArray(q.outcomes) && leftIn(q).length > 0 ? q : null;
}

export function keepQueue(db: LocalDb, userId: string, q: KeptQueue | null): Promise<void> {
  return db.setMeta(keyOf(userId), q);
}
