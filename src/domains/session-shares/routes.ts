import type { Context, Hono } from "hono";
import { z } from "zod";
import { dbFor, directoryDb } from "../../db/client";
import { route } from "../../http/route";
import type { AppEnv } from "../../http/types";
import { AppError, ErrorCode } from "../../lib/errors";
import { idParam } from "../../lib/validators";
import { roomFor } from "../../../durable-objects/session-share/room";
import * as repo from "./repo";
import {
  CreateSessionShareBody,
  CreateSessionShareResponse,
  PatchSessionShareBody,
  SessionResponse,
  SuccessResponse,
  TicketQuery,
  TicketResponse,
  TokenParam,
} from "./schema";
import { previewUrl, SessionShareService, TERMINAL, toView } from "./service";
import { viewerPage } from "./viewer-page";
import { sseJsonFrame, sseResponse } from "../../kernel/sse";

const service = (c: Context<AppEnv>) =>
  new SessionShareService(dbFor(c.env, c.get("user").id), c.env, c.get("config"));

/** Spec "Events": polled every 2 seconds for at most 5 minutes. */
export const STATUS_POLL_MS = 2000;
export const STATUS_STREAM_MS = 5 * 60 * 1000;

export function registerSessionShareRoutes(app: Hono<AppEnv>) {
  route(app, {
    method: "post",
    path: "/api/session-shares",
    summary: "Share a logged-in browser session without revealing the credentials",
    tags: ["session-shares"],
    rateLimit: ["session_share_create"],
    stepUp: { maxAge: 300, sensitive: true },
    body: CreateSessionShareBody,
    responses: {
      201: {
        description: "Created; the token is shown only here",
        schema: CreateSessionShareResponse,
      },
    },
    handler: async (c, { body }) => c.json(await service(c).create(c.get("user"), body), 201),
  });

  route(app, {
    method: "get",
    path: "/api/session-shares/:id",
    summary: "One of the caller's session shares",
    tags: ["session-shares"],
    params: idParam,
    responses: {
      200: {
        description: "The session",
        schema: z.object({ session: SessionResponse.shape.session }),
      },
    },
    handler: async (c, { params }) =>
      c.json({ session: toView(await service(c).get(c.get("user"), params.id)) }),
  });

  route(app, {
    method: "get",
    path: "/api/session-shares/:id/status",
    summary:
      "Owner-only status stream (text/event-stream): status every 2 s, complete when the login is done",
    tags: ["session-shares"],
    params: idParam,
    responses: { 200: { description: "Server-sent events", contentType: "text/event-stream" } },
    handler: async (c, { params }) => {
      const user = c.get("user");
      await service(c).get(user, params.id);
      return statusStream(c, user.id, params.id);
    },
  });

  route(app, {
    method: "patch",
    path: "/api/session-shares/:id",
    summary: "Pause, resume, revoke, extend or toggle the watermark",
    tags: ["session-shares"],
    params: idParam,
    body: PatchSessionShareBody,
    responses: { 200: { description: "Updated", schema: SessionResponse } },
    handler: async (c, { params, body }) =>
      c.json({
        success: true as const,
        session: await service(c).patch(c.get("user"), params.id, body),
      }),
  });

  route(app, {
    method: "delete",
    path: "/api/session-shares/:id",
    summary: "Revoke and end the browser session at once",
    tags: ["session-shares"],
    params: idParam,
    responses: { 200: { description: "Ended", schema: SuccessResponse } },
    handler: async (c, { params }) => {
      await service(c).remove(c.get("user"), params.id);
      return c.json({ success: true as const });
    },
  });

  route(app, {
    method: "post",
    path: "/api/session-shares/:id/ticket",
    summary: "Owner's one-time ticket for the live view",
    tags: ["session-shares"],
    stepUp: { denyUnknownDevice: true },
    params: idParam,
    responses: { 200: { description: "Ticket", schema: TicketResponse } },
    handler: async (c, { params }) =>
      c.json(await service(c).ticketForOwner(c.get("user"), params.id)),
  });

  route(app, {
    method: "post",
    path: "/api/session-shares/view/:token/ticket",
    summary: "A viewer's one-time ticket for the live view, by share token",
    tags: ["session-shares"],
    stepUp: { denyUnknownDevice: true },
    params: TokenParam,
    responses: { 200: { description: "Ticket", schema: TicketResponse } },
    handler: async (c, { params }) =>
      c.json(await service(c).ticketForViewer(c.get("user"), params.token)),
  });

  route(app, {
    method: "get",
    path: "/api/session-shares/:id/live",
    summary: "WebSocket of the live view (frames out, input in), authorised by a ticket",
    tags: ["session-shares"],
    auth: false,
    params: idParam,
    query: TicketQuery,
    responses: { 101: { description: "WebSocket" } },
    handler: async (c, { params }) => {
      if (c.req.header("upgrade")?.toLowerCase() !== "websocket")
        throw new AppError(ErrorCode.VALIDATION_ERROR, "Expected a WebSocket upgrade");
      if (!(await repo.ownerOf(directoryDb(c.env), { id: params.id })))
        throw new AppError(ErrorCode.NOT_FOUND, "Shared session not found");
      return roomFor(c.env.SESSION_SHARES, params.id).fetch(c.req.raw);
    },
  });

  app.get("/s/preview/:id", (c) => viewerPage(c, { kind: "owner", id: c.req.param("id") }));
  app.get("/s/:token", (c) => viewerPage(c, { kind: "viewer", token: c.req.param("token") }));
}

function statusStream(c: Context<AppEnv>, ownerId: string, id: string): Response {
  const db = dbFor(c.env, ownerId);
  const enc = new TextEncoder();
  let stopped = false;
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (event: string, data: unknown) =>
        controller.enqueue(enc.encode(sseJsonFrame(event, data)));
      const deadline = Date.now() + STATUS_STREAM_MS;
      try {
        while (!stopped) {
          const row = await repo.findOwned(db, ownerId, id);
          if (!row) break;
          const done = row.status !== "scheduled" && row.status !== "login_in_progress";
          const live = row.status === "active" || row.status === "paused";
          const preview = live ? { livePreviewUrl: previewUrl(id) } : {};
          const viewers = live
            ? ((await roomFor(c.env.SESSION_SHARES, id).status())?.viewers ?? row.currentViewers)
            : row.currentViewers;
          send("status", {
            type: "status",
            status: row.status,
            currentViewers: viewers,
            ...preview,
          });
          if (done || TERMINAL.includes(row.status)) {
            send("complete", { type: "complete", status: row.status, ...preview });
            break;
          }
          if (Date.now() + STATUS_POLL_MS > deadline) break;
          await new Promise((r) => setTimeout(r, STATUS_POLL_MS));
        }
      } finally {
        if (!stopped) controller.close();
      }
    },
    cancel() {
      stopped = true;
    },
  });
  return sseResponse(stream);
}
