import { and, count, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { notifications, type NotificationRow } from "../../db/schema";
import { rowsChanged } from "../../db/d1";

/** Newest first; rowid breaks ties between notifications made in the same millisecond. */
export async function list(db: Db, userId: string, limit: number, unreadOnly: boolean): Promise<{ rows: NotificationRow[]; unread: number }> {
  const mine = eq(notifications.userId, userId);
  const [rows, unread] = await db.batch([
    db
      .select()
      .from(notifications)
      .where(unreadOnly ? and(mine, eq(notifications.isRead, false)) : mine)
      .orderBy(desc(notifications.createdAt), desc(sql`rowid`))
      .limit(limit),
    db.select({ n: count() }).from(notifications).where(and(mine, eq(notifications.isRead, false))),
  ]);
  return { rows, unread: unread[0]?.n ?? 0 };
}

export async function clearAll(db: Db, userId: string): Promise<number> {
  const result = await db.delete(notifications).where(eq(notifications.userId, userId)).run();
  return rowsChanged(result);
}

/** Sets one notification's read flag; undefined when the caller owns no such notification. */
export async function setRead(db: Db, userId: string, id: string, isRead: boolean): Promise<NotificationRow | undefined> {
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
