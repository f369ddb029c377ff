import { and, count, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { notifications, type NotificationRow } from "../../db/schema";
import { keysetPage, type Order } from "../../db/keyset";
import type { Page, PageParams } from "../../kernel/pagination";

/**
 * Newest first, and among notifications of the same millisecond the later written first: the rowid
 * (insertion order) is the tie-breaker, the id only makes the order total on paper.
 */
const NEWEST: Order<typeof notifications> = {
  dir: "desc",
  keys: (t) => [t.createdAt, sql`${t}.rowid`],
};

export async function list(
  db: Db,
  userId: string,
  unreadOnly: boolean,
  page: PageParams,
): Promise<{ rows: Page<NotificationRow>; unread: number }> {
  const mine = (t: typeof notifications) => eq(t.userId, userId);
  const [rows, unread] = await Promise.all([
    keysetPage(
      db,
      { table: notifications, order: NEWEST, scope: mine, page },
      ({ after, orderBy, take }) =>
        db
          .select()
          .from(notifications)
          .where(
            and(
              mine(notifications),
              unreadOnly ? eq(notifications.isRead, false) : undefined,
              after,
            ),
          )
          .orderBy(...orderBy)
          .limit(take)
          .all(),
    ),
    db
      .select({ n: count() })
      .from(notifications)
      .where(and(mine(notifications), eq(notifications.isRead, false)))
      .get(),
  ]);
  return { rows, unread: unread?.n ?? 0 };
}

/** Counts the deleted rows themselves: D1's `changes` also counts the byte counter's trigger writes. */
export async function clearAll(db: Db, userId: string): Promise<number> {
  const deleted = await db
    .delete(notifications)
    .where(eq(notifications.userId, userId))
    .returning({ id: notifications.id })
    .all();
  return deleted.length;
}

/** Sets one notification's read flag; undefined when the caller owns no such notification. */
export async function setRead(
  db: Db,
  userId: string,
  id: string,
  isRead: boolean,
): Promise<NotificationRow | undefined> {
  const [row] = await db
    .update(notifications)
    .set({ isRead })
    .where(and(eq(notifications.userId, userId), eq(notifications.id, id)))
    .returning();
  return row;
}

export async function markAllRead(db: Db, userId: string): Promise<number> {
  const result = await db
    .update(notifications)
    .set({ isRead: true })
    .where(and(eq(notifications.userId, userId), eq(notifications.isRead, false)))
    .run();
  return result.meta.changes ?? 0;
}
