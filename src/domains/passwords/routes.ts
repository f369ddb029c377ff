import type { Context, Hono } from "hono";
import { dbFor } from "../../db/client";
import { entryIdClaims } from "../../db/entry-ids";
import { route } from "../../http/route";
import { registerTransferRoutes } from "./transfer-routes";
import { registerTrashRoutes } from "./trash-routes";
import { requestMeta, type AppEnv } from "../../http/types";
import { idParam } from "../../lib/validators";
import {
  CreatePasswordBody,
  CreatePasswordResponse,
  ListPasswordsQuery,
  ListPasswordsResponse,
  MatchQuery,
  MatchResponse,
  RevealResponse,
  SuccessResponse,
  UpdatePasswordBody,
  UpdatePasswordResponse,
} from "./schema";
import { vaultLimits } from "./repo";
import { PasswordService } from "./service";

function service(c: Context<AppEnv>) {
  const user = c.get("user");
  return new PasswordService(
    dbFor(c.env, user.id),
    vaultLimits(c.get("config")),
    entryIdClaims(c.env),
    c.env,
  );
}

export function registerPasswordRoutes(app: Hono<AppEnv>) {
  registerTransferRoutes(app);
  registerTrashRoutes(app);
  route(app, {
    method: "get",
    path: "/api/passwords/match",
    summary: "Entries whose hostname matches a URL (browser-extension autofill)",
    tags: ["passwords"],
    rateLimitConcurrent: true,
    query: MatchQuery,
    responses: {
      200: { description: "Matching entries", schema: MatchResponse },
      304: { description: "Unchanged since the ETag sent in If-None-Match" },
    },
    handler: async (c, { query }) => {
      const { etag, matches } = await service(c).match(
        c.get("user").id,
        query.url,
        query.host_hashes,
        c.req.header("if-none-match"),
      );
      // Revalidate every time (no-cache): the answer is one user's, and may change with any write.
      c.header("ETag", etag);
      c.header("Cache-Control", "private, no-cache");
      c.header("Vary", "Authorization, Cookie");
      return matches === null ? c.body(null, 304) : c.json({ matches });
    },
  });

  route(app, {
    method: "get",
    path: "/api/passwords",
    summary: "List live password entries, newest first",
    tags: ["passwords"],
    rateLimit: ["passwords"],
    query: ListPasswordsQuery,
    responses: { 200: { description: "A page of entries", schema: ListPasswordsResponse } },
    handler: async (c, { query }) =>
      c.json(await service(c).list(c.get("user").id, query.page, query.limit)),
  });

  route(app, {
    method: "post",
    path: "/api/passwords",
    summary: "Create a V3-encrypted password entry",
    tags: ["passwords"],
    rateLimit: ["passwords"],
    idempotent: true,
    body: CreatePasswordBody,
    responses: { 201: { description: "Created", schema: CreatePasswordResponse } },
    handler: async (c, { body }) =>
      c.json(
        { success: true as const, data: await service(c).create(c.get("user").id, body) },
        201,
      ),
  });

  route(app, {
    method: "patch",
    path: "/api/passwords/:id",
    summary: "Update the given fields of an entry",
    tags: ["passwords"],
    params: idParam,
    body: UpdatePasswordBody,
    responses: { 200: { description: "Updated", schema: UpdatePasswordResponse } },
    handler: async (c, { params, body }) =>
      c.json({
        success: true as const,
        data: await service(c).update(c.get("user").id, params.id, body),
      }),
  });

  route(app, {
    method: "delete",
    path: "/api/passwords/:id",
    summary: "Soft-delete an entry (it stays as a sync tombstone)",
    tags: ["passwords"],
    params: idParam,
    responses: { 200: { description: "Deleted", schema: SuccessResponse } },
    handler: async (c, { params }) => {
      await service(c).remove(c.get("user").id, params.id);
      return c.json({ success: true as const });
    },
  });

  route(app, {
    method: "post",
    path: "/api/passwords/:id/reveal",
    summary: "Return the entry's V3 envelope; audited with IP, device and time",
    tags: ["passwords"],
    rateLimit: ["password_reveal"],
    params: idParam,
    responses: { 200: { description: "Envelope", schema: RevealResponse } },
    handler: async (c, { params }) =>
      c.json({
        envelope: await service(c).reveal(c.get("user").id, params.id, requestMeta(c.req)),
      }),
  });
}
