import type { Context, Hono } from "hono";
import { dbFor } from "../../db/client";
import { route } from "../../http/route";
import { requestMeta, type AppEnv } from "../../http/types";
import { idParam } from "../../lib/validators";
import { CodeResponse, SetTotpBody, SuccessResponse, TotpConfigResponse } from "./schema";
import { EntryTotpService } from "./service";

function service(c: Context<AppEnv>) {
  return new EntryTotpService(dbFor(c.env, c.get("user").id), c.get("config").dataKeys, c.env);
}

export function registerEntryTotpRoutes(app: Hono<AppEnv>) {
  route(app, {
    method: "get",
    path: "/api/passwords/:id/totp",
    summary: "The entry's TOTP configuration (zero-trust form includes secretEncrypted)",
    tags: ["passwords", "totp"],
    params: idParam,
    responses: {
      200: { description: "Configuration, or {hasTotp: false}", schema: TotpConfigResponse },
    },
    handler: async (c, { params }) => c.json(await service(c).get(c.get("user").id, params.id)),
  });

  route(app, {
    method: "post",
    path: "/api/passwords/:id/totp",
    summary:
      "Store a client-side encrypted TOTP secret and its parameters (replaces any earlier one)",
    tags: ["passwords", "totp"],
    params: idParam,
    body: SetTotpBody,
    responses: { 201: { description: "Stored", schema: SuccessResponse } },
    handler: async (c, { params, body }) => {
      await service(c).set(c.get("user").id, params.id, body);
      return c.json({ success: true as const }, 201);
    },
  });

  route(app, {
    method: "delete",
    path: "/api/passwords/:id/totp",
    summary: "Remove the entry's TOTP configuration",
    tags: ["passwords", "totp"],
    params: idParam,
    responses: { 200: { description: "Removed", schema: SuccessResponse } },
    handler: async (c, { params }) => {
      await service(c).remove(c.get("user").id, params.id);
      return c.json({ success: true as const });
    },
  });

  route(app, {
    method: "get",
    path: "/api/passwords/:id/totp/code",
    summary: "Current code of a legacy (server-held) secret; 410 for zero-trust entries",
    tags: ["passwords", "totp"],
    params: idParam,
    responses: {
      200: { description: "Code and whole seconds until it changes", schema: CodeResponse },
    },
    handler: async (c, { params }) => {
      c.header("Cache-Control", "no-store");
      return c.json(await service(c).code(c.get("user").id, params.id, requestMeta(c.req)));
    },
  });
}
