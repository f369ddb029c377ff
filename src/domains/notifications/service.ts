import type { Db } from "../../db/client";
import type { PageParams } from "../../kernel/pagination";
import { AppError, ErrorCode, notFound, validationError } from "../../lib/errors";
import { notifyWithinQuota, toNotification } from "./notify";
import * as repo from "./repo";
import { UUID, type CreateNotificationInput } from "./schema";

export class NotificationService {
  constructor(
    private readonly db: Db,
    private readonly maxBytes: number,
  ) {}

  async list(userId: string, unreadOnly: boolean, page: PageParams) {
    const { rows, unread } = await repo.list(this.db, userId, unreadOnly, page);
    return {
      notifications: rows.items.map(toNotification),
      unread_count: unread,
      next_cursor: rows.next_cursor,
    };
  }

  /** A client may only notify itself (spec "Authentication" 7): another user's id is 403. */
  async create(userId: string, input: CreateNotificationInput) {
    if (input.user_id !== userId) {
      if (!UUID.test(input.user_id))
        throw validationError("Request validation failed", [
          { field: "user_id", message: "must be a UUID" },
        ]);
      throw new AppError(ErrorCode.FORBIDDEN, "Notifications can only be created for yourself");
    }
    const created = await notifyWithinQuota(
      this.db,
      {
        userId,
        type: input.type,
        title: input.title,
        body: input.body,
        color: input.color,
        icon: input.icon,
        actionUrl: input.action_url,
        actorId: input.actor_id,
        actorEmail: input.actor_email,
        actorName: input.actor_name,
        metadata: input.metadata,
      },
      this.maxBytes,
    );
    if (!created)
      throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, "Notification storage quota exceeded");
    return created;
  }

  async setRead(userId: string, id: string, isRead: boolean) {
    const row = await repo.setRead(this.db, userId, id, isRead);
    if (!row) throw notFound("Notification");
    return toNotification(row);
  }

  async markAllRead(userId: string) {
    return repo.markAllRead(this.db, userId);
  }

  async clearAll(userId: string) {
    return repo.clearAll(this.db, userId);
  }
}
