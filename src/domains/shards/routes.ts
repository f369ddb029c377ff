import type { Hono } from "hono";
import { moveUser } from "../../db/shard-move";
import { directoryBinding, shardBindings } from "../../db/shards";
import { route } from "../../http/route";
import type { AppEnv } from "../../http/types";
import { MoveBody, MoveResponse, ShardsResponse } from "./schema";

/**
 * The operator's side of docs/decisions/scale.md, "Scale: shards, a directory, many databases" (scripts/shards.mjs calls these): which shards this deployment
 * binds, and moving one user to another shard online (src/db/shard-move.ts). Admin only.
 */
export function registerShardRoutes(app: Hono<AppEnv>) {
  route(app, {
    method: "get",
    path: "/api/admin/shards",
    summary: "The D1 shards and the directory this deployment binds (admin)",
    tags: ["admin"],
    admin: true,
    rateLimit: ["admin_registry_read"],
    responses: { 200: { description: "Shard binding names", schema: ShardsResponse } },
    handler: async (c) =>
      c.json({ shards: shardBindings(c.env), directory: directoryBinding(c.env) }),
  });

  route(app, {
    method: "post",
    path: "/api/admin/shards/moves",
    summary:
      "Move one user's rows to another shard while the service runs; repeat after a failure to resume (admin)",
    tags: ["admin"],
    admin: true,
    rateLimit: ["admin_registry_write"],
    body: MoveBody,
    responses: {
      200: { description: "Moved (or already there)", schema: MoveResponse },
      409: { description: "Another move of this user is under way" },
    },
    handler: async (c, { body }) => {
      // An unbound `to` is refused by moveUser (400 on `to`).
      const r = await moveUser(c.env, body.user_id, body.to);
      return c.json({
        user_id: r.userId,
        from: r.from,
        to: r.to,
        rows_copied: r.rowsCopied,
        rows_deleted: r.rowsDeleted,
      });
    },
  });
}
