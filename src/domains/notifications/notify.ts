import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { batchable } from "../../db/d1";
import {
  bytesOf,
  NOTIFICATION_SIZE_COLUMNS,
  notifications,
  utf8Bytes,
  type NotificationRow,
} from "../../db/schema";
import type { Config } from "../../env";
import { randomId } from "../../lib/crypto";
import { pushToUser } from "../push";

export type NotifyInput = {
  userId: string;
  type: string;
  title: string;
  body: string;
  color?: string;
  icon?: string | null;
  actionUrl?: string | null;
  actorId?: string | null;
  actorEmail?: string | null;
  actorName?: string | null;
  metadata?: Record<string, unknown>;
};

export function toNotification(row: NotificationRow) {
  return {
    id: row.id,
    user_id: row.userId,
    type: row.type,
    title: row.title,
    body: row.body,
    color: row.color,
    icon: row.icon,
    action_url: row.actionUrl,
    actor_id: row.actorId,
    actor_email: row.actorEmail,
    actor_name: row.actorName,
    metadata: row.metadata,
    is_read: row.isRead,
    created_at: row.createdAt,
  };
}

/** Builds the insert of a notification, so a caller can batch it with the change it reports. */
export function notificationInsert(db: Db, n: NotifyInput) {
  const row: NotificationRow = {
    id: randomId(),
    userId: n.userId,
    type: n.type,
    title: n.title,
    body: n.body,
    color: n.color ?? "default",
    icon: n.icon ?? null,
    actionUrl: n.actionUrl ?? null,
    actorId: n.actorId ?? null,
    actorEmail: n.actorEmail ?? null,
    actorName: n.actorName ?? null,
    metadata: n.metadata ?? {},
    isRead: false,
    createdAt: new Date().toISOString(),
  };
  return { row, query: db.insert(notifications).values(row) };
}

/** What a row counts against MAX_NOTIFICATION_BYTES_PER_USER, as migration 0015's triggers count it. */
export const notificationBytes = (r: NotificationRow) =>
  utf8Bytes([
    r.title,
    r.body,
    JSON.stringify(r.metadata),
    r.icon,
    r.actionUrl,
    r.actorEmail,
    r.actorName,
  ]);

const rowBytes = bytesOf(NOTIFICATION_SIZE_COLUMNS.map((c) => sql.raw(c)));

/**
 * Makes room for `incoming` bytes by deleting the user's oldest read notifications, as few as
 * needed. Unread ones are never deleted: a user has not seen them yet, and some report security
 * events. One statement; the triggers lower the counter as rows go.
 */
export function evictReadStatement(db: Db, userId: string, incoming: number, max: number) {
  return batchable(
    db,
    sql`
    DELETE FROM notifications WHERE id IN (
      SELECT id FROM (
        SELECT id, sum(${rowBytes}) OVER (ORDER BY created_at DESC, rowid DESC) AS kept
        FROM notifications WHERE user_id = ${userId} AND is_read = 1)
      WHERE kept + ${incoming} + (SELECT coalesce(sum(${rowBytes}), 0) FROM notifications WHERE user_id = ${userId} AND is_read = 0) > ${max})`,
  );
}

/**
 * What reaches the user with no tab open (docs/decisions/client.md, "Client: entry tools and account pages", "Web Push (server side)"): the events that need a person
 * within hours or that look like a break-in. The rest waits in the notification centre.
 */
const PUSHED_TYPES = new Set([
  // Someone waits for the person's answer: an invitation or a share stays pending until accepted.
  "emergency_contact_invited",
  "share_received",
  "emergency_access_requested",
  "dead_man_switch_reminder",
  "new_device",
]);

/**
 * The service's own notifications (a viewed share, an emergency request, a switch reminder). They
 * are always stored, whatever the quota: refusing or dropping one could hide a security event.
 * They are counted, and the user's next notification makes room for them (notifyWithinQuota).
 * With the configuration, the pushed types also go to the user's browsers; pushToUser never throws
 * and bounds each send, so the notification stands whatever the push services do.
 */
export async function notify(db: Db, n: NotifyInput, config?: Config) {
  const { row, query } = notificationInsert(db, n);
  await query;
  if (config && PUSHED_TYPES.has(n.type))
    await pushToUser(db, config, n.userId, {
      type: n.type,
      title: n.title,
      body: n.body,
      url: n.actionUrl ?? "/",
    });
  return toNotification(row);
}

/**
 * A notification the user writes (POST): read ones make room first, then it goes in only if it
 * fits. One batch, one transaction: parallel posts cannot pass the quota. False when refused.
 */
export async function notifyWithinQuota(db: Db, n: NotifyInput, maxBytes: number) {
  const { row } = notificationInsert(db, n);
  const size = notificationBytes(row);
  const insert = batchable(
    db,
    sql`
    INSERT INTO notifications (id, user_id, type, title, body, color, icon, action_url, actor_id, actor_email, actor_name, metadata, is_read, created_at)
    SELECT ${row.id}, ${row.userId}, ${row.type}, ${row.title}, ${row.body}, ${row.color}, ${row.icon}, ${row.actionUrl}, ${row.actorId},
      ${row.actorEmail}, ${row.actorName}, ${JSON.stringify(row.metadata)}, 0, ${row.createdAt}
    WHERE coalesce((SELECT notification_bytes FROM vault_counters WHERE user_id = ${row.userId}), 0) + ${size} <= ${maxBytes}`,
  );
  const [, inserted] = await db.batch([evictReadStatement(db, n.userId, size, maxBytes), insert]);
  return (inserted as { meta: { changes?: number | null } }).meta.changes
    ? toNotification(row)
    : null;
}
