import type { Context, Hono } from "hono";
import { dbFor } from "../../db/client";
import { route } from "../../http/route";
import { requestMeta, type AppEnv } from "../../http/types";
import { idParam } from "../../lib/validators";
import {
  DownloadResponse,
  ListQuery,
  ListResponse,
  SuccessResponse,
  UPLOAD_BODY_LIMIT,
  UploadBody,
  UploadResponse,
} from "./schema";
import { AttachmentService } from "./service";

function service(c: Context<AppEnv>) {
  return new AttachmentService(
    dbFor(c.env, c.get("user").id),
    c.env.ATTACHMENTS,
    c.get("config").ATTACHMENT_QUOTA_BYTES,
  );
}

export function registerAttachmentRoutes(app: Hono<AppEnv>) {
  route(app, {
    method: "get",
    path: "/api/vault/attachments",
    summary: "List the attachments of a vault item the caller owns",
    tags: ["attachments"],
    rateLimit: ["attachments_list"],
    query: ListQuery,
    responses: {
      200: { description: "Attachments, newest first, without content", schema: ListResponse },
    },
    handler: async (c, { query }) => {
      const svc = service(c);
      const page = await svc.list(c.get("user").id, query.parent_type, query.parent_id, query);
      return c.json({ ...page, usage: await svc.usage(c.get("user").id) });
    },
  });

  route(app, {
    method: "post",
    path: "/api/vault/attachments",
    summary:
      "Upload a client-side encrypted attachment (12-byte IV then AES-GCM ciphertext, base64)",
    tags: ["attachments"],
    rateLimit: ["attachments_upload"],
    bodyLimit: UPLOAD_BODY_LIMIT,
    body: UploadBody,
    responses: {
      201: { description: "Stored", schema: UploadResponse },
      413: { description: "Body over 36 MB" },
      422: { description: "Storage quota exceeded" },
    },
    handler: async (c, { body }) =>
      c.json(
        { attachment: await service(c).upload(c.get("user").id, body, requestMeta(c.req)) },
        201,
      ),
  });

  route(app, {
    method: "get",
    path: "/api/vault/attachments/:id",
    summary: "Download an attachment: encrypted content, wrapped file key and encrypted metadata",
    tags: ["attachments"],
    rateLimit: ["attachments_download"],
    stepUp: { sensitive: true },
    params: idParam,
    responses: {
      200: { description: "The attachment with its content", schema: DownloadResponse },
    },
    handler: async (c, { params }) => {
      const stream = await service(c).download(c.get("user").id, params.id);
      return new Response(stream, {
        status: 200,
        headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
      });
    },
  });

  route(app, {
    method: "delete",
    path: "/api/vault/attachments/:id",
    summary: "Delete an attachment and its stored blob",
    tags: ["attachments"],
    rateLimit: ["attachments_delete"],
    params: idParam,
    responses: { 200: { description: "Deleted", schema: SuccessResponse } },
    handler: async (c, { params }) => {
      await service(c).remove(c.get("user").id, params.id, requestMeta(c.req));
      return c.json({ success: true as const });
    },
  });
}
