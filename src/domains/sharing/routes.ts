import type { Context, Hono } from "hono";
import { route } from "../../http/route";
import { requestMeta, type AppEnv } from "../../http/types";
import { idParam } from "../../lib/validators";
import {
  CreateShareBody,
  CreateShareResponse,
  ListSharesQuery,
  ListSharesResponse,
  PatchShareBody,
  PutSharingKeyBody,
  ShareResponse,
  SharingKeyQuery,
  SharingKeyResponse,
  SuccessResponse,
  UpdateSharedAccountBody,
  UpdateSharedAccountResponse,
  ViewLogBody,
  ViewLogListResponse,
  ViewLogResponse,
} from "./schema";
import { SharingService } from "./service";

const service = (c: Context<AppEnv>) => new SharingService(c.env, c.get("config"));

export function registerSharingRoutes(app: Hono<AppEnv>) {
  route(app, {
    method: "post",
    path: "/api/sharing",
    summary: "Share an entry with a recipient by email (pending until they accept)",
    tags: ["sharing"],
    rateLimit: ["sharing_create"],
    stepUp: { maxAge: 300, sensitive: true },
    body: CreateShareBody,
    responses: { 201: { description: "Created", schema: CreateShareResponse } },
    handler: async (c, { body }) =>
      c.json({ success: true as const, share: await service(c).create(c.get("user"), body) }, 201),
  });

  route(app, {
    method: "get",
    path: "/api/sharing",
    summary: "Shares the caller owns or has received",
    tags: ["sharing"],
    rateLimit: ["sharing_access"],
    query: ListSharesQuery,
    responses: { 200: { description: "Shares", schema: ListSharesResponse } },
    handler: async (c, { query }) =>
      c.json(await service(c).list(c.get("user"), query.type, query.accountId, query)),
  });

  route(app, {
    method: "get",
    path: "/api/sharing/public-key",
    summary: "The caller's sharing public key, or with ?email= a recipient's",
    tags: ["sharing"],
    rateLimit: ["sharing_access"],
    query: SharingKeyQuery,
    responses: { 200: { description: "Public key", schema: SharingKeyResponse } },
    handler: async (c, { query }) => c.json(await service(c).getKey(c.get("user"), query.email)),
  });

  route(app, {
    method: "put",
    path: "/api/sharing/public-key",
    summary: "Register or replace the caller's sharing public key (ECDH P-256 JWK)",
    tags: ["sharing"],
    rateLimit: ["sharing_access"],
    body: PutSharingKeyBody,
    responses: { 200: { description: "Registered", schema: SharingKeyResponse } },
    handler: async (c, { body }) =>
      c.json(await service(c).putKey(c.get("user"), body.publicKey, body.wrappedPrivateKey)),
  });

  route(app, {
    method: "get",
    path: "/api/sharing/:id/views",
    summary: "The owner's view log of a share (what the recipient viewed or copied, when)",
    tags: ["sharing"],
    rateLimit: ["sharing_access"],
    params: idParam,
    responses: { 200: { description: "View log, newest first", schema: ViewLogListResponse } },
    handler: async (c, { params }) => c.json(await service(c).views(c.get("user"), params.id)),
  });

  route(app, {
    method: "patch",
    path: "/api/sharing/:id",
    summary: "Owner: revoke or change permission. Recipient: accept with status active",
    tags: ["sharing"],
    rateLimit: ["sharing_access"],
    params: idParam,
    body: PatchShareBody,
    responses: { 200: { description: "Updated", schema: ShareResponse } },
    handler: async (c, { params, body }) =>
      c.json({
        success: true as const,
        share: await service(c).patch(c.get("user"), params.id, body),
      }),
  });

  route(app, {
    method: "delete",
    path: "/api/sharing/:id",
    summary: "Delete a share (owner only)",
    tags: ["sharing"],
    rateLimit: ["sharing_access"],
    params: idParam,
    responses: { 200: { description: "Deleted", schema: SuccessResponse } },
    handler: async (c, { params }) => {
      await service(c).remove(c.get("user"), params.id);
      return c.json({ success: true as const });
    },
  });

  route(app, {
    method: "post",
    path: "/api/sharing/:id/view",
    summary: "Recipient's view log: password_viewed notifies the owner, password_copied does not",
    tags: ["sharing"],
    csrf: false,
    rateLimit: ["sharing_access"],
    params: idParam,
    body: ViewLogBody,
    responses: { 201: { description: "Recorded", schema: ViewLogResponse } },
    handler: async (c, { params, body }) =>
      c.json(
        await service(c).logView(c.get("user"), params.id, body.action, requestMeta(c.req)),
        201,
      ),
  });

  route(app, {
    method: "patch",
    path: "/api/sharing/:id/account",
    summary: "A recipient with write permission updates the shared entry",
    tags: ["sharing"],
    rateLimit: ["sharing_access"],
    params: idParam,
    body: UpdateSharedAccountBody,
    responses: { 200: { description: "Updated", schema: UpdateSharedAccountResponse } },
    handler: async (c, { params, body }) =>
      c.json({
        success: true as const,
        account: await service(c).updateSharedAccount(c.get("user"), params.id, body),
      }),
  });
}
