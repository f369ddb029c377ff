import type { Hono } from "hono";
import { directoryDb } from "../../db/client";
import { route } from "../../http/route";
import { requestMeta, type AppEnv } from "../../http/types";
import { idParam } from "../../lib/validators";
import { startChatReset } from "./chat";
import {
  CancelTaskResponse,
  ChatResetBody,
  CreateResetTaskBody,
  CreateResetTaskResponse,
  JobResponse,
  OtpBody,
  OtpResponse,
  SignInDiscoveryBody,
  SignInDiscoveryResponse,
} from "./schema";
import { cancelTask, createResetTask, getTaskRecord, submitOtp, taskStream } from "./service";
import { discoverSignIn } from "./sign-in-discovery";
import { sseResponse } from "../../kernel/sse";

/** DECISIONS D17: a reset hands a third-party account to automation, so a fresh sign-in on a known device. */
const RESET_STEP_UP = { maxAge: 300, denyUnknownDevice: true };

export function registerResetRoutes(app: Hono<AppEnv>) {
  route(app, {
    method: "post",
    path: "/api/sign-in-discovery",
    summary: "Inspect a login page: sign-in methods, reset and signup URLs",
    tags: ["reset"],
    rateLimit: ["sign_in_discovery"],
    body: SignInDiscoveryBody,
    responses: {
      200: { description: "What the page offers", schema: SignInDiscoveryResponse },
      422: { description: "The page could not be read" },
      429: { description: "More than 20 discoveries in an hour" },
    },
    handler: async (c, { body }) =>
      c.json(await discoverSignIn(c.get("config"), directoryDb(c.env), body.url)),
  });

  route(app, {
    method: "post",
    path: "/api/tasks/reset",
    summary: "Start an automated password reset (queued; follow it on the task stream)",
    tags: ["reset"],
    rateLimit: ["reset_tasks"],
    stepUp: RESET_STEP_UP,
    body: CreateResetTaskBody,
    responses: {
      201: { description: "Task created", schema: CreateResetTaskResponse },
      422: { description: "email is not one of the caller's connected mailboxes" },
    },
    handler: async (c, { body }) =>
      c.json(
        await createResetTask(
          c.env,
          c.get("config"),
          c.get("user").id,
          body as never,
          requestMeta(c.req),
        ),
        201,
      ),
  });

  route(app, {
    method: "post",
    path: "/api/chat/reset",
    summary: "Start a password reset from a chat message; progress as markdown sections",
    tags: ["reset"],
    rateLimit: ["reset_tasks"],
    stepUp: RESET_STEP_UP,
    body: ChatResetBody,
    responses: {
      200: {
        description:
          "event section (data: header | progress | gmail | captcha | password | result), then one message event per markdown line",
        contentType: "text/event-stream",
      },
      400: { description: "No service could be identified (details on message)" },
      404: { description: "passwordId or serviceId names nothing of the caller's" },
      422: {
        description:
          "email (or the default address) is not one of the caller's connected mailboxes",
      },
    },
    handler: async (c, { body }) => {
      const stream = await startChatReset(
        c.env,
        c.get("config"),
        c.get("user").id,
        body as never,
        requestMeta(c.req),
      );
      return sseResponse(stream);
    },
  });

  route(app, {
    method: "get",
    path: "/api/tasks/:id/stream",
    summary: "Task progress as server-sent events (latest status replayed on connect)",
    tags: ["reset"],
    params: idParam,
    responses: {
      200: {
        description: "event status {status, step?, newPassword?, error?}; event screenshot {url}",
        contentType: "text/event-stream",
      },
    },
    handler: async (c, { params }) => {
      const upstream = await taskStream(c.env, c.get("user").id, params.id);
      return sseResponse(upstream.body);
    },
  });

  route(app, {
    method: "post",
    path: "/api/tasks/:id/otp",
    summary: "Supply a one-time code the reset flow is waiting for",
    tags: ["reset"],
    params: idParam,
    body: OtpBody,
    responses: {
      200: { description: "Whether the task could take the code", schema: OtpResponse },
    },
    handler: async (c, { params, body }) =>
      c.json(await submitOtp(c.env, c.get("user").id, params.id, body.code)),
  });

  route(app, {
    method: "post",
    path: "/api/tasks/:id/cancel",
    summary: "Cancel a reset task that has not ended (DECISIONS D17)",
    tags: ["reset"],
    params: idParam,
    responses: {
      200: {
        description: "Cancelled; the stream ends with status cancelled",
        schema: CancelTaskResponse,
      },
      404: { description: "No such task of the caller's" },
      409: { description: "The task has ended, or is setting the new password" },
    },
    handler: async (c, { params }) => c.json(await cancelTask(c.env, c.get("user").id, params.id)),
  });

  route(app, {
    method: "get",
    path: "/api/jobs/:id",
    summary: "A reset job with its steps and their durations (ms)",
    tags: ["reset"],
    params: idParam,
    responses: { 200: { description: "The job", schema: JobResponse } },
    handler: async (c, { params }) =>
      c.json(await getTaskRecord(c.env, c.get("user").id, params.id)),
  });
}
