import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { pushSubscriptions, type PushSubscriptionRow } from "../../db/schema";
import { rawD1, rowsChanged } from "../../db/d1";
import { randomId } from "../../lib/crypto";

export async function listFor(db: Db, userId: string): Promise<PushSubscriptionRow[]> {
  return db
    .select()
    .from(pushSubscriptions)
    .where(eq(pushSubscriptions.userId, userId))
    .orderBy(pushSubscriptions.createdAt)
    .all();
}

type RawRow = {
  id: string;
  user_id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  created_at: string;
};

/**
 * Upsert by (user, endpoint): a browser that subscribes again (new keys) replaces its row. A new
 * endpoint goes in only while the user holds fewer than `max`: the count is in the writing
 * statement, so parallel subscribes cannot pass the cap (a read-then-insert could). Null at the
 * cap; `created` says whether this call made the row.
 */
export async function upsertUnderLimit(
  db: Db,
  userId: string,
  s: { endpoint: string; p256dh: string; auth: string },
  max: number,
): Promise<{ row: PushSubscriptionRow; created: boolean } | null> {
  const id = randomId();
  const got = await rawD1(db)
    .prepare(
      `INSERT INTO push_subscriptions (id, user_id, endpoint, p256dh, auth, created_at)
       SELECT ?1, ?2, ?3, ?4, ?5, ?6
       WHERE (SELECT count(*) FROM push_subscriptions WHERE user_id = ?2) < ?7
          OR EXISTS (SELECT 1 FROM push_subscriptions WHERE user_id = ?2 AND endpoint = ?3)
       ON CONFLICT (user_id, endpoint) DO UPDATE SET p256dh = excluded.p256dh, auth = excluded.auth
       RETURNING id, user_id, endpoint, p256dh, auth, created_at`,
    )
    .bind(id, userId, s.endpoint, s.p256dh, s.auth, new Date().toISOString(), max)
    .first<RawRow>();
  if (!got) return null;
  return {
    row: {
      id: got.id,
      userId: got.user_id,
      endpoint: got.endpoint,
      p256dh: got.p256dh,
      auth: got.auth,
      createdAt: got.created_at,
    },
    created: got.id === id,
  };
}

export async function remove(db: Db, userId: string, id: string): Promise<boolean> {
  const result = await db
    .delete(pushSubscriptions)
    .where(and(eq(pushSubscriptions.userId, userId), eq(pushSubscriptions.id, id)))
    .run();
  return rowsChanged(result) > 0;
}
