import type { Context, Hono } from "hono";
import { dbFor } from "../../db/client";
import { route } from "../../http/route";
import type { AppEnv } from "../../http/types";
import { idParam } from "../../lib/validators";
import {
  DeletedResponse,
  SubscribeBody,
  SubscriptionListResponse,
  SubscriptionResponse,
  VapidKeyResponse,
} from "./schema";
import { PushService } from "./service";

const service = (c: Context<AppEnv>) =>
  new PushService(dbFor(c.env, c.get("user").id), c.get("config"));

/** Web Push (docs/decisions/client.md, "Client: entry tools and account pages"): not in the spec, so the paths and bodies are ours (docs/decisions/client.md, "Web Push (server side)"). */
export function registerPushRoutes(app: Hono<AppEnv>) {
  route(app, {
    method: "get",
    path: "/api/push/vapid-public-key",
    summary:
      "The application server key for PushManager.subscribe (RFC 8292), or enabled:false when push is not configured",
    tags: ["push"],
    responses: { 200: { description: "Key", schema: VapidKeyResponse } },
    handler: async (c) => {
      const push = c.get("config").push;
      return c.json({ enabled: !!push, public_key: push?.publicKey ?? null });
    },
  });

  route(app, {
    method: "get",
    path: "/api/push/subscriptions",
    summary:
      "The caller's push subscriptions (the push service host only; the endpoint is a capability)",
    tags: ["push"],
    responses: { 200: { description: "Subscriptions", schema: SubscriptionListResponse } },
    handler: async (c) => c.json({ subscriptions: await service(c).list(c.get("user").id) }),
  });

  route(app, {
    method: "post",
    path: "/api/push/subscriptions",
    summary: "Register this browser's PushSubscription; the same endpoint again replaces its keys",
    tags: ["push"],
    rateLimit: ["push_subscribe"],
    body: SubscribeBody,
    responses: {
      201: { description: "Created", schema: SubscriptionResponse },
      200: { description: "Replaced", schema: SubscriptionResponse },
    },
    handler: async (c, { body }) => {
      const { subscription, created } = await service(c).subscribe(c.get("user").id, body);
      return c.json({ subscription }, created ? 201 : 200);
    },
  });

  route(app, {
    method: "delete",
    path: "/api/push/subscriptions/:id",
    summary: "Remove one of the caller's push subscriptions",
    tags: ["push"],
    rateLimit: ["push_subscribe"],
    params: idParam,
    responses: { 200: { description: "Deleted", schema: DeletedResponse } },
    handler: async (c, { params }) => {
      await service(c).remove(c.get("user").id, params.id);
      return c.json({ success: true as const });
    },
  });
}
