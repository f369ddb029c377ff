import type { Db } from "../../db/client";
import type { PushSubscriptionRow } from "../../db/schema";
import type { Config } from "../../env";
import { AppError, ErrorCode, notFound } from "../../lib/errors";
import { guardOptions } from "../../lib/guarded-fetch";
import { assertPublicUrl } from "../../lib/outbound-guard";
import * as repo from "./repo";
import type { SubscribeBody } from "./schema";
import type { z } from "zod";

/** Browsers one user may receive pushes on; more is a runaway client, not a person. */
export const MAX_SUBSCRIPTIONS_PER_USER = 10;

const view = (row: PushSubscriptionRow) => ({
  id: row.id,
  push_service: new URL(row.endpoint).host,
  created_at: row.createdAt,
});

export class PushService {
  constructor(
    private readonly db: Db,
    private readonly config: Config,
  ) {}

  private enabled() {
    if (!this.config.push)
      throw new AppError(ErrorCode.NOT_FOUND, "Push notifications are not configured");
  }

  async list(userId: string) {
    this.enabled();
    return (await repo.listFor(this.db, userId)).map(view);
  }

  /**
   * RFC 8030 push resources are https; the outbound guard (D12) refuses private destinations, so a
   * subscription can never point our sender at an internal address. Plain http is accepted only
   * where the guard allows private addresses (development and tests).
   */
  async subscribe(userId: string, body: z.infer<typeof SubscribeBody>) {
    this.enabled();
    const url = await assertPublicUrl(body.endpoint, "endpoint", guardOptions(this.config));
    if (url.protocol !== "https:" && !this.config.allowPrivateOutbound) {
      throw new AppError(ErrorCode.VALIDATION_ERROR, "Request validation failed", {
        details: [{ field: "endpoint", message: "must be https" }],
      });
    }
    const keys = {
      endpoint: body.endpoint,
      p256dh: body.keys.p256dh.replace(/=+$/, ""),
      auth: body.keys.auth.replace(/=+$/, ""),
    };
    const done = await repo.upsertUnderLimit(this.db, userId, keys, MAX_SUBSCRIPTIONS_PER_USER);
    if (!done)
      throw new AppError(
        ErrorCode.CONFLICT,
        `At most ${MAX_SUBSCRIPTIONS_PER_USER} browsers can receive push notifications`,
      );
    return { subscription: view(done.row), created: done.created };
  }

  async remove(userId: string, id: string) {
    this.enabled();
    if (!(await repo.remove(this.db, userId, id))) throw notFound("Push subscription");
  }
}
