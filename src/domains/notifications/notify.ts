import type { Db } from "../../db/client";
import { notifications, type NotificationRow } from "../../db/schema";
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

/**
 * What reaches the user with no tab open (issue 16, Web Push): the events that need a person
 * within hours or that look like a break-in. The rest waits in the notification centre.
 */
const PUSHED_TYPES = new Set(["emergency_access_requested", "dead_man_switch_reminder", "new_device"]);

/**
 * The service's own notifications (a viewed share, an emergency request, a switch reminder). With
 * the configuration, the pushed types also go to the user's browsers; pushToUser never throws and
 * bounds each send, so the notification stands whatever the push services do.
 */
export async function notify(db: Db, n: NotifyInput, config?: Config) {
  const { row, query } = notificationInsert(db, n);
  await query;
  if (config && PUSHED_TYPES.has(n.type)) await pushToUser(db, config, n.userId, { type: n.type, title: n.title, body: n.body, url: n.actionUrl ?? "/" });
  return toNotification(row);
}
