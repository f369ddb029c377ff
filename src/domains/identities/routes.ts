import type { Context, Hono } from "hono";
import { dbFor } from "../../db/client";
import { route } from "../../http/route";
import type { AppEnv } from "../../http/types";
import { idParam } from "../../lib/validators";
import {
  CreateIdentityBody,
  IdentityResponse,
  ListIdentitiesQuery,
  ListIdentitiesResponse,
  SuccessResponse,
  UpdateIdentityBody,
} from "./schema";
import { IdentityService } from "./service";

function service(c: Context<AppEnv>) {
  const config = c.get("config");
  return new IdentityService(
    dbFor(c.env, c.get("user").id),
    {
      a: config.ALIAS_PROVIDER_A_URL,
      b: config.ALIAS_PROVIDER_B_URL,
      bDomain: config.ALIAS_PROVIDER_B_DOMAIN,
    },
    config.dataKeys,
    config.MAX_IDENTITY_BYTES_PER_USER,
  );
}

export function registerIdentityRoutes(app: Hono<AppEnv>) {
  route(app, {
    method: "get",
    path: "/api/identities",
    summary: "List disposable identities, newest first, with counts per status",
    tags: ["identities"],
    query: ListIdentitiesQuery,
    responses: { 200: { description: "Identities and stats", schema: ListIdentitiesResponse } },
    handler: async (c, { query }) =>
      c.json(await service(c).list(c.get("user").id, query.status, query)),
  });

  route(app, {
    method: "post",
    path: "/api/identities",
    summary:
      "Generate a disposable identity, optionally with an email alias from an alias provider",
    tags: ["identities"],
    rateLimit: ["identities_create"],
    body: CreateIdentityBody,
    responses: {
      201: { description: "Created", schema: IdentityResponse },
      422: { description: "The alias provider rejected the API key or the request" },
      503: { description: "The alias provider is unavailable; nothing was created" },
    },
    handler: async (c, { body }) =>
      c.json(
        { success: true as const, identity: await service(c).create(c.get("user").id, body) },
        201,
      ),
  });

  route(app, {
    method: "patch",
    path: "/api/identities/:id",
    summary: "Pause, resume or nuke an identity, or change its label, notes or service",
    tags: ["identities"],
    rateLimit: ["identities_write"],
    params: idParam,
    body: UpdateIdentityBody,
    responses: {
      200: { description: "Updated", schema: IdentityResponse },
      409: { description: "The identity is nuked" },
      503: { description: "The alias provider is unavailable; the identity was not nuked" },
    },
    handler: async (c, { params, body }) =>
      c.json({
        success: true as const,
        identity: await service(c).update(c.get("user").id, params.id, body),
      }),
  });

  route(app, {
    method: "delete",
    path: "/api/identities/:id",
    summary: "Remove an identity record",
    tags: ["identities"],
    rateLimit: ["identities_write"],
    params: idParam,
    responses: { 200: { description: "Removed", schema: SuccessResponse } },
    handler: async (c, { params }) => {
      await service(c).remove(c.get("user").id, params.id);
      return c.json({ success: true as const });
    },
  });
}
