import type { Context, Hono } from "hono";
import { dbFor } from "../../db/client";
import { route } from "../../http/route";
import type { AppEnv } from "../../http/types";
import { idParam } from "../../lib/validators";
import {
  ClearNotificationsResponse,
  CreateNotificationBody,
  CreateNotificationResponse,
  ListNotificationsQuery,
  ListNotificationsResponse,
  MarkAllReadResponse,
  MarkReadBody,
  NotificationResponse,
} from "./schema";
import { NotificationService } from "./service";

function service(c: Context<AppEnv>) {
  return new NotificationService(
    dbFor(c.env, c.get("user").id),
    c.get("config").MAX_NOTIFICATION_BYTES_PER_USER,
  );
}

/** Error codes under /api/notifications are lower-case (spec "Errors"); http/errors.ts does that by path. */
export function registerNotificationRoutes(app: Hono<AppEnv>) {
  route(app, {
    method: "get",
    path: "/api/notifications",
    summary: "The caller's notifications, newest first, with the total unread count (DECISIONS D6)",
    tags: ["notifications"],
    query: ListNotificationsQuery,
    responses: { 200: { description: "Notifications", schema: ListNotificationsResponse } },
    handler: async (c, { query }) =>
      c.json(await service(c).list(c.get("user").id, query.unread_only, query)),
  });

  route(app, {
    method: "post",
    path: "/api/notifications",
    summary: "Create a notification for the caller (user_id must be the caller's own)",
    tags: ["notifications"],
    rateLimit: ["notifications_create"],
    body: CreateNotificationBody,
    responses: { 201: { description: "Created", schema: CreateNotificationResponse } },
    handler: async (c, { body }) =>
      c.json({ notification: await service(c).create(c.get("user").id, body) }, 201),
  });

  route(app, {
    method: "post",
    path: "/api/notifications/read",
    summary: "Mark all of the caller's notifications read",
    tags: ["notifications"],
    rateLimit: ["notifications_update"],
    responses: { 200: { description: "Marked", schema: MarkAllReadResponse } },
    handler: async (c) =>
      c.json({ success: true as const, updated: await service(c).markAllRead(c.get("user").id) }),
  });

  route(app, {
    method: "patch",
    path: "/api/notifications/:id",
    summary: "Mark one of the caller's notifications read or unread",
    tags: ["notifications"],
    rateLimit: ["notifications_update"],
    params: idParam,
    body: MarkReadBody,
    responses: { 200: { description: "Updated notification", schema: NotificationResponse } },
    handler: async (c, { params, body }) =>
      c.json({ notification: await service(c).setRead(c.get("user").id, params.id, body.is_read) }),
  });

  route(app, {
    method: "delete",
    path: "/api/notifications",
    summary: "Delete all of the caller's notifications, read and unread; no undo",
    tags: ["notifications"],
    rateLimit: ["notifications_clear"],
    responses: { 200: { description: "Cleared", schema: ClearNotificationsResponse } },
    handler: async (c) =>
      c.json({ success: true as const, deleted: await service(c).clearAll(c.get("user").id) }),
  });
}
