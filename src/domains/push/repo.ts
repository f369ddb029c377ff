import { and, count, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { pushSubscriptions, type PushSubscriptionRow } from "../../db/schema";
import { rowsChanged } from "../../db/d1";
import { randomId } from "../../lib/crypto";

export async function listFor(db: Db, userId: string): Promise<PushSubscriptionRow[]> {
  return db.select().from(pushSubscriptions).where(eq(pushSubscriptions.userId, userId)).orderBy(pushSubscriptions.createdAt).all();
}

export async function countFor(db: Db, userId: string): Promise<number> {
  const row = await db.select({ n: count() }).from(pushSubscriptions).where(eq(pushSubscriptions.userId, userId)).get();
  return row?.n ?? 0;
}

/** Upsert by (user, endpoint): a browser that subscribes again (new keys) replaces its row. */
export async function upsert(db: Db, userId: string, s: { endpoint: string; p256dh: string; auth: string }): Promise<PushSubscriptionRow> {
  const [row] = await db
    .insert(pushSubscriptions)
    .values({ id: randomId(), userId, endpoint: s.endpoint, p256dh: s.p256dh, auth: s.auth, createdAt: new Date().toISOString() })
    .onConflictDoUpdate({ target: [pushSubscriptions.userId, pushSubscriptions.endpoint], set: { p256dh: s.p256dh, auth: s.auth } })
    .returning();
  return row!;
}

export async function findByEndpoint(db: Db, userId: string, endpoint: string): Promise<PushSubscriptionRow | undefined> {
  return db
    .select()
    .from(pushSubscriptions)
    .where(and(eq(pushSubscriptions.userId, userId), eq(pushSubscriptions.endpoint, endpoint)))
    .get();
}

export async function remove(db: Db, userId: string, id: string): Promise<boolean> {
  const result = await db.delete(pushSubscriptions).where(and(eq(pushSubscriptions.userId, userId), eq(pushSubscriptions.id, id))).run();
  return rowsChanged(result) > 0;
}
