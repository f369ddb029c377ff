import type { Hono } from "hono";
import { route } from "../../http/route";
import type { AppEnv } from "../../http/types";
import { SyncPullQuery, SyncPullResponse } from "../sync";
import { VaultEntryService } from "./entries";
import { VaultRotationService } from "./rotation";
import { ctxOf } from "./request";
import {
  BeginRotationBody,
  CommitBody,
  CreateEntryBody,
  EntryParam,
  EntryWriteResponse,
  MoveBody,
  RotationResponse,
  RotationWrapsBody,
  StageBody,
  StageResponse,
  SuccessResponse,
  UpdateEntryBody,
  VaultParam,
} from "./schema";

const tags = ["vaults"];

/** Entries of a shared vault (checked by role) and the key rotation's steps. */
export function registerVaultEntryRoutes(app: Hono<AppEnv>) {
  const entries = (c: Parameters<typeof ctxOf>[0]) => new VaultEntryService(ctxOf(c));
  const rotation = (c: Parameters<typeof ctxOf>[0]) => new VaultRotationService(ctxOf(c));

  route(app, {
    method: "get",
    path: "/api/vaults/:id/sync",
    summary:
      "A member's delta pull of one vault (its own cursor; the key version in X-Vault-Key-Version)",
    tags,
    rateLimit: ["sync_pull"],
    rateLimitConcurrent: true,
    params: VaultParam,
    query: SyncPullQuery,
    responses: { 200: { description: "Changes and the next cursor", schema: SyncPullResponse } },
    handler: async (c, { params, query }) => {
      const { body, keyVersion } = await entries(c).pull(
        c.get("user"),
        params.id,
        query.since,
        query.resume,
      );
      return c.body(body, 200, {
        "Content-Type": "application/json",
        "Cache-Control": "no-store",
        "X-Vault-Key-Version": String(keyVersion ?? 0),
      });
    },
  });
  route(app, {
    method: "post",
    path: "/api/vaults/:id/entries",
    summary: "Add an entry (owner, manager, editor) under the current key version",
    tags,
    params: VaultParam,
    body: CreateEntryBody,
    responses: { 201: { description: "Created", schema: EntryWriteResponse } },
    handler: async (c, { params, body }) =>
      c.json(await entries(c).create(c.get("user"), params.id, body), 201),
  });
  route(app, {
    method: "put",
    path: "/api/vaults/:id/entries/:entry_id",
    summary: "Change an entry (owner, manager, editor) under the current key version",
    tags,
    params: EntryParam,
    body: UpdateEntryBody,
    responses: { 200: { description: "Updated", schema: EntryWriteResponse } },
    handler: async (c, { params, body }) =>
      c.json(await entries(c).update(c.get("user"), params.id, params.entry_id, body)),
  });
  route(app, {
    method: "delete",
    path: "/api/vaults/:id/entries/:entry_id",
    summary: "Delete an entry (owner, manager, editor)",
    tags,
    params: EntryParam,
    responses: { 200: { description: "Deleted", schema: SuccessResponse } },
    handler: async (c, { params }) => {
      await entries(c).remove(c.get("user"), params.id, params.entry_id);
      return c.json({ success: true as const });
    },
  });
  route(app, {
    method: "post",
    path: "/api/vaults/move",
    summary:
      "Move an entry between the personal vault and shared ones, re-encrypted for its destination",
    tags,
    body: MoveBody,
    responses: {
      200: { description: "Moved (the entry's id in its destination)", schema: EntryWriteResponse },
    },
    handler: async (c, { body }) => c.json(await entries(c).move(c.get("user"), body)),
  });
  route(app, {
    method: "get",
    path: "/api/vaults/:id/rotation",
    summary: "The key rotation in progress and what is left of it (owner or manager)",
    tags,
    params: VaultParam,
    responses: { 200: { description: "Rotation", schema: RotationResponse } },
    handler: async (c, { params }) => c.json(await rotation(c).state(c.get("user"), params.id)),
  });
  route(app, {
    method: "post",
    path: "/api/vaults/:id/rotation",
    summary: "Begin (or resume) a new key version after from_version (owner or manager)",
    tags,
    params: VaultParam,
    body: BeginRotationBody,
    responses: { 200: { description: "Rotation", schema: RotationResponse } },
    handler: async (c, { params, body }) =>
      c.json(await rotation(c).begin(c.get("user"), params.id, body.from_version)),
  });
  route(app, {
    method: "put",
    path: "/api/vaults/:id/rotation/entries",
    summary: "Upload up to 100 entries re-encrypted for the new version; stale ones come back",
    tags,
    params: VaultParam,
    body: StageBody,
    responses: { 200: { description: "Staged", schema: StageResponse } },
    handler: async (c, { params, body }) =>
      c.json(await rotation(c).stage(c.get("user"), params.id, body.version, body.entries)),
  });
  route(app, {
    method: "put",
    path: "/api/vaults/:id/rotation/keys",
    summary: "Upload members' copies of the new vault key",
    tags,
    params: VaultParam,
    body: RotationWrapsBody,
    responses: { 200: { description: "Rotation", schema: RotationResponse } },
    handler: async (c, { params, body }) =>
      c.json(await rotation(c).wraps(c.get("user"), params.id, body.version, body.wraps)),
  });
  route(app, {
    method: "post",
    path: "/api/vaults/:id/rotation/commit",
    summary:
      "Commit the new version as one fenced change; writes under the old one are refused after",
    tags,
    params: VaultParam,
    body: CommitBody,
    responses: { 200: { description: "Committed", schema: RotationResponse } },
    handler: async (c, { params, body }) =>
      c.json(await rotation(c).commit(c.get("user"), params.id, body.version)),
  });
}
