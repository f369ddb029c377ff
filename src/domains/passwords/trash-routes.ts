import type { Context, Hono } from "hono";
import { z } from "zod";
import { dbFor } from "../../db/client";
import { route } from "../../http/route";
import type { AppEnv } from "../../http/types";
import { queryInt } from "../../lib/validators";
import { idParam } from "../../lib/validators";
import { vaultLimits } from "./repo";
import { PasswordEntry, SuccessResponse } from "./schema";
import { TrashService } from "./trash-service";

const TrashQuery = z.object({
  page: queryInt(1, 1_000_000, 1),
  limit: queryInt(1, 500, 100),
});

const TrashResponse = z.object({
  data: z.array(PasswordEntry),
  pagination: z.object({
    page: z.number().int(),
    limit: z.number().int(),
    total: z.number().int(),
  }),
  retention_days: z.number().int(),
});

const RestoreResponse = z.object({
  success: z.literal(true),
  data: z.object({ id: z.string(), updated_at: z.string() }),
});

const EmptyResponse = z.object({ success: z.literal(true), purged: z.number().int() });

function service(c: Context<AppEnv>) {
  const user = c.get("user");
  return new TrashService(
    dbFor(c.env, user.id),
    c.env.ATTACHMENTS,
    vaultLimits(c.get("config")),
    c.env,
  );
}

/**
 * The trash beside the spec's soft delete (which stays as it is): the deleted entries still held,
 * restore, purge one, empty. Registered before `/api/passwords/:id`, so "trash" is never an id.
 */
export function registerTrashRoutes(app: Hono<AppEnv>) {
  route(app, {
    method: "get",
    path: "/api/passwords/trash",
    summary: "The caller's deleted entries still in the trash, most recently deleted first",
    tags: ["passwords"],
    rateLimit: ["passwords"],
    query: TrashQuery,
    responses: { 200: { description: "A page of trashed entries", schema: TrashResponse } },
    handler: async (c, { query }) =>
      c.json(
        await service(c).list(
          c.get("user").id,
          query.page,
          query.limit,
          c.get("config").TRASH_RETENTION_DAYS,
        ),
      ),
  });

  route(app, {
    method: "post",
    path: "/api/passwords/trash/:id/restore",
    summary: "Bring a trashed entry back into the vault (synced as a change)",
    tags: ["passwords"],
    rateLimit: ["passwords"],
    params: idParam,
    responses: { 200: { description: "Restored", schema: RestoreResponse } },
    handler: async (c, { params }) =>
      c.json({
        success: true as const,
        data: await service(c).restore(c.get("user").id, params.id),
      }),
  });

  route(app, {
    method: "delete",
    path: "/api/passwords/trash/:id",
    summary: "Delete a trashed entry for good, with its attachments",
    tags: ["passwords"],
    rateLimit: ["passwords"],
    params: idParam,
    responses: { 200: { description: "Purged", schema: SuccessResponse } },
    handler: async (c, { params }) => {
      await service(c).purgeOne(c.get("user").id, params.id);
      return c.json({ success: true as const });
    },
  });

  route(app, {
    method: "delete",
    path: "/api/passwords/trash",
    summary: "Empty the trash: every trashed entry deleted for good, with its attachments",
    tags: ["passwords"],
    rateLimit: ["passwords"],
    responses: { 200: { description: "Emptied", schema: EmptyResponse } },
    handler: async (c) =>
      c.json({ success: true as const, purged: await service(c).empty(c.get("user").id) }),
  });
}
