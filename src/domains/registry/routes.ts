import type { Context, Hono } from "hono";
import { directoryDb } from "../../db/client";
import { route } from "../../http/route";
import type { AppEnv } from "../../http/types";
import {
  CreateOverrideBody,
  CreateOverrideResponse,
  DomainParam,
  ListOverridesQuery,
  ListOverridesResponse,
  OverrideResponse,
  PasskeySitesResponse,
  UpdateOverrideBody,
} from "./schema";
import { passkeySites } from "./resolve";
import { RegistryAdminService } from "./service";

const service = (c: Context<AppEnv>) => new RegistryAdminService(directoryDb(c.env));
const BASE = "/api/admin/services/registry";

export function registerRegistryRoutes(app: Hono<AppEnv>) {
  route(app, {
    method: "get",
    path: BASE,
    summary: "List service registry overrides (admin)",
    tags: ["admin"],
    admin: true,
    rateLimit: ["admin_registry_read"],
    query: ListOverridesQuery,
    responses: {
      200: {
        description: "Overrides, inactive ones included unless active_only=true",
        schema: ListOverridesResponse,
      },
    },
    handler: async (c, { query }) =>
      c.json(
        await service(c).list({
          search: query.search,
          category: query.category,
          activeOnly: query.active_only,
        }),
      ),
  });

  route(app, {
    method: "post",
    path: BASE,
    summary: "Create a registry override, or reactivate an inactive one with new data (admin)",
    tags: ["admin"],
    admin: true,
    rateLimit: ["admin_registry_write"],
    body: CreateOverrideBody,
    responses: {
      201: { description: "Created", schema: CreateOverrideResponse },
      409: { description: "An active override exists" },
    },
    handler: async (c, { body }) =>
      c.json(
        { override: await service(c).create(c.get("user").id, body), created: true as const },
        201,
      ),
  });

  route(app, {
    method: "patch",
    path: `${BASE}/:domain`,
    summary: "Update the given fields of an override; null clears a field (admin)",
    tags: ["admin"],
    admin: true,
    rateLimit: ["admin_registry_write"],
    params: DomainParam,
    body: UpdateOverrideBody,
    responses: { 200: { description: "Updated", schema: OverrideResponse } },
    handler: async (c, { params, body }) =>
      c.json({ override: await service(c).update(c.get("user").id, params.domain, body) }),
  });

  route(app, {
    method: "delete",
    path: `${BASE}/:domain`,
    summary: "Soft-delete an override (is_active false) (admin)",
    tags: ["admin"],
    admin: true,
    rateLimit: ["admin_registry_write"],
    params: DomainParam,
    responses: { 200: { description: "Deactivated", schema: OverrideResponse } },
    handler: async (c, { params }) =>
      c.json({ override: await service(c).remove(c.get("user").id, params.domain) }),
  });

  // Any signed-in person: the entry detail's "this site supports passkeys". The whole list, not a
  // lookup per site, so the server never learns which entry the person is looking at.
  route(app, {
    method: "get",
    path: "/api/registry/passkeys",
    summary: "Sites the service registry says offer passkeys, with where to add one",
    tags: ["registry"],
    responses: {
      200: {
        description: "Passkey sites (name, support type, https setup address); no admin fields",
        schema: PasskeySitesResponse,
      },
    },
    handler: async (c) => {
      const sites = await passkeySites(directoryDb(c.env));
      return c.json({ sites, count: sites.length });
    },
  });
}
