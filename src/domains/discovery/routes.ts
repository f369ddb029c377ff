import type { Context, Hono } from "hono";
import { dbFor } from "../../db/client";
import { route } from "../../http/route";
import type { AppEnv } from "../../http/types";
import {
  AccountsPatchBody,
  AccountsScanBody,
  AddToVaultBody,
  AddToVaultResponse,
  ListQuery,
  ListResponse,
  OriginalPatchBody,
  PatchResponse,
} from "./schema";
import { DiscoveryService } from "./service";

function service(c: Context<AppEnv>) {
  return new DiscoveryService(dbFor(c.env, c.get("user").id), c.env, c.get("config"));
}

export function registerDiscoveryRoutes(app: Hono<AppEnv>) {
  for (const [path, tag] of [
    ["/api/discover-accounts", "discovery (original)"],
    ["/api/accounts", "discovery"],
  ] as const) {
    route(app, {
      method: "get",
      path,
      summary:
        "Persisted discovered accounts (no scan); dismissed ones only with include_dismissed=true",
      tags: [tag],
      query: ListQuery,
      responses: { 200: { description: "Accounts and stats", schema: ListResponse } },
      handler: async (c, { query }) =>
        c.json(await service(c).list(c.get("user").id, query.include_dismissed ?? false, query)),
    });
  }

  route(app, {
    method: "post",
    path: "/api/discover-accounts",
    summary: "Fresh scan of the connected mailbox; upserts the results",
    tags: ["discovery (original)"],
    rateLimit: ["discovery_scan"],
    responses: { 200: { description: "Accounts and stats", schema: ListResponse } },
    handler: async (c) => c.json(await service(c).scan(c.get("user").id, "original")),
  });

  route(app, {
    method: "post",
    path: "/api/accounts",
    summary:
      "Fresh scan of every connected mailbox, or only the one with `email`, with OAuth sign-in enrichment",
    tags: ["discovery"],
    rateLimit: ["accounts_scan"],
    body: AccountsScanBody,
    responses: { 200: { description: "Accounts and stats", schema: ListResponse } },
    handler: async (c, { body }) =>
      c.json(await service(c).scan(c.get("user").id, "unified", body?.email)),
  });

  route(app, {
    method: "patch",
    path: "/api/discover-accounts",
    summary: "Dismiss or un-dismiss a discovered account",
    tags: ["discovery (original)"],
    rateLimit: ["accounts_patch"],
    body: OriginalPatchBody,
    responses: { 200: { description: "Updated", schema: PatchResponse } },
    handler: async (c, { body }) =>
      c.json({ success: true as const, account: await service(c).patch(c.get("user").id, body) }),
  });

  route(app, {
    method: "patch",
    path: "/api/accounts",
    summary: "Dismiss or un-dismiss, or mark as in the vault",
    tags: ["discovery"],
    rateLimit: ["accounts_patch"],
    body: AccountsPatchBody,
    responses: { 200: { description: "Updated", schema: PatchResponse } },
    handler: async (c, { body }) =>
      c.json({ success: true as const, account: await service(c).patch(c.get("user").id, body) }),
  });

  route(app, {
    method: "post",
    path: "/api/accounts/add-to-vault",
    summary: "Create placeholder entries (encryption_version -1) for up to 200 discovered domains",
    tags: ["discovery"],
    rateLimit: ["accounts_add_to_vault"],
    body: AddToVaultBody,
    responses: { 200: { description: "Created and skipped", schema: AddToVaultResponse } },
    handler: async (c, { body }) =>
      c.json(
        await service(c).addToVault(
          c.get("user").id,
          body.domains,
          c.get("config").MAX_PASSWORDS_PER_USER,
        ),
      ),
  });
}
