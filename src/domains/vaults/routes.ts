import type { Context, Hono } from "hono";
import { route } from "../../http/route";
import type { AppEnv } from "../../http/types";
import { ctxOf } from "./request";
import { registerVaultEntryRoutes } from "./entry-routes";
import { registerVaultTokenRoutes } from "./token-routes";
import {
  ActivityQuery,
  ActivityResponse,
  CreateBody,
  DeleteQuery,
  InvitationListResponse,
  InvitationParam,
  InvitationResponse,
  InviteBody,
  KeyResponse,
  MemberListResponse,
  MemberParam,
  MemberResponse,
  RenameBody,
  RoleBody,
  SuccessResponse,
  TransferBody,
  VaultListResponse,
  VaultParam,
  VaultResponse,
  WrapBody,
} from "./schema";
import { VaultService } from "./service";

const service = (c: Context<AppEnv>) => new VaultService(ctxOf(c));
const ok = { success: true as const };
const tags = ["vaults"];
const InvitationId = InvitationParam.pick({ invitation_id: true });

export function registerVaultRoutes(app: Hono<AppEnv>) {
  route(app, {
    method: "get",
    path: "/api/vaults",
    summary: "The shared vaults the caller belongs to, with their role and key version",
    tags,
    responses: { 200: { description: "Vaults", schema: VaultListResponse } },
    handler: async (c) => c.json(await service(c).list(c.get("user"))),
  });
  route(app, {
    method: "post",
    path: "/api/vaults",
    summary: "Create a shared vault (sealed name, the creator's copy of key version 1)",
    tags,
    rateLimit: ["vault_create"],
    body: CreateBody,
    responses: { 201: { description: "Created", schema: VaultResponse } },
    handler: async (c, { body }) => c.json(await service(c).create(c.get("user"), body), 201),
  });
  route(app, {
    method: "get",
    path: "/api/vaults/invitations",
    summary: "Open invitations to the caller's verified email",
    tags,
    responses: { 200: { description: "Invitations", schema: InvitationListResponse } },
    handler: async (c) => c.json(await service(c).invitations(c.get("user"))),
  });
  route(app, {
    method: "post",
    path: "/api/vaults/invitations/:invitation_id/accept",
    summary: "Accept an invitation: a member without a key until an owner or manager wraps it",
    tags,
    params: InvitationId,
    responses: { 200: { description: "Joined", schema: VaultResponse } },
    handler: async (c, { params }) =>
      c.json(await service(c).accept(c.get("user"), params.invitation_id)),
  });
  route(app, {
    method: "post",
    path: "/api/vaults/invitations/:invitation_id/decline",
    summary: "Decline an invitation",
    tags,
    params: InvitationId,
    responses: { 200: { description: "Declined", schema: SuccessResponse } },
    handler: async (c, { params }) => {
      await service(c).decline(c.get("user"), params.invitation_id);
      return c.json(ok);
    },
  });
  route(app, {
    method: "get",
    path: "/api/vaults/:id",
    summary: "One vault the caller belongs to",
    tags,
    params: VaultParam,
    responses: { 200: { description: "Vault", schema: VaultResponse } },
    handler: async (c, { params }) => c.json(await service(c).get(c.get("user"), params.id)),
  });
  route(app, {
    method: "patch",
    path: "/api/vaults/:id",
    summary: "Rename (owner or manager; the name is sealed by the client)",
    tags,
    params: VaultParam,
    body: RenameBody,
    responses: { 200: { description: "Renamed", schema: VaultResponse } },
    handler: async (c, { params, body }) =>
      c.json(await service(c).rename(c.get("user"), params.id, body.sealed_name)),
  });
  route(app, {
    method: "delete",
    path: "/api/vaults/:id",
    summary: "Delete (owner only); refused while entries remain unless entries=delete",
    tags,
    stepUp: { sensitive: true },
    params: VaultParam,
    query: DeleteQuery,
    responses: { 200: { description: "Deleted", schema: SuccessResponse } },
    handler: async (c, { params, query }) => {
      await service(c).remove(c.get("user"), params.id, query.entries);
      return c.json(ok);
    },
  });
  route(app, {
    method: "post",
    path: "/api/vaults/:id/transfer",
    summary: "Transfer ownership to a member (owner only; the old owner becomes a manager)",
    tags,
    stepUp: { sensitive: true },
    params: VaultParam,
    body: TransferBody,
    responses: { 200: { description: "Transferred", schema: VaultResponse } },
    handler: async (c, { params, body }) =>
      c.json(await service(c).transfer(c.get("user"), params.id, body.user_id)),
  });
  route(app, {
    method: "post",
    path: "/api/vaults/:id/invitations",
    summary: "Invite by email with a role (owner or manager; only an owner invites an owner)",
    tags,
    rateLimit: ["vault_invite"],
    params: VaultParam,
    body: InviteBody,
    responses: { 201: { description: "Invited", schema: InvitationResponse } },
    handler: async (c, { params, body }) =>
      c.json(await service(c).invite(c.get("user"), params.id, body), 201),
  });
  route(app, {
    method: "delete",
    path: "/api/vaults/:id/invitations/:invitation_id",
    summary: "Cancel an open invitation (owner or manager)",
    tags,
    params: InvitationParam,
    responses: { 200: { description: "Cancelled", schema: SuccessResponse } },
    handler: async (c, { params }) => {
      await service(c).cancelInvitation(c.get("user"), params.id, params.invitation_id);
      return c.json(ok);
    },
  });
  route(app, {
    method: "get",
    path: "/api/vaults/:id/members",
    summary: "Members with their state (pending, accepted, wrapped) and open invitations",
    tags,
    params: VaultParam,
    responses: { 200: { description: "Members", schema: MemberListResponse } },
    handler: async (c, { params }) => c.json(await service(c).members(c.get("user"), params.id)),
  });
  route(app, {
    method: "put",
    path: "/api/vaults/:id/members/:user_id/key",
    summary:
      "Post a member's copy of the current vault key (owner or manager; member must have accepted)",
    tags,
    params: MemberParam,
    body: WrapBody,
    responses: { 200: { description: "Wrapped", schema: MemberResponse } },
    handler: async (c, { params, body }) =>
      c.json(await service(c).wrap(c.get("user"), params.id, params.user_id, body)),
  });
  route(app, {
    method: "patch",
    path: "/api/vaults/:id/members/:user_id",
    summary: "Change a member's role (owner or manager; the last owner keeps the role)",
    tags,
    params: MemberParam,
    body: RoleBody,
    responses: { 200: { description: "Changed", schema: MemberResponse } },
    handler: async (c, { params, body }) =>
      c.json(await service(c).setRole(c.get("user"), params.id, params.user_id, body.role)),
  });
  route(app, {
    method: "delete",
    path: "/api/vaults/:id/members/:user_id",
    summary: "Remove a member (owner or manager) or leave (oneself); refused for the last owner",
    tags,
    params: MemberParam,
    responses: { 200: { description: "Removed", schema: SuccessResponse } },
    handler: async (c, { params }) => {
      await service(c).removeMember(c.get("user"), params.id, params.user_id);
      return c.json(ok);
    },
  });
  route(app, {
    method: "get",
    path: "/api/vaults/:id/key",
    summary: "The caller's own copy of the vault's current key",
    tags,
    params: VaultParam,
    responses: { 200: { description: "Key", schema: KeyResponse } },
    handler: async (c, { params }) => {
      c.header("Cache-Control", "no-store");
      return c.json(await service(c).key(c.get("user"), params.id));
    },
  });
  route(app, {
    method: "get",
    path: "/api/vaults/:id/activity",
    summary: "The vault's activity log, newest first (owner or manager; no secrets)",
    tags,
    params: VaultParam,
    query: ActivityQuery,
    responses: { 200: { description: "Activity", schema: ActivityResponse } },
    handler: async (c, { params, query }) =>
      c.json(await service(c).activity(c.get("user"), params.id, query)),
  });
  registerVaultEntryRoutes(app);
  registerVaultTokenRoutes(app);
}
