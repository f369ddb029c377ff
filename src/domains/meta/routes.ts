import type { Hono } from "hono";
import { z } from "zod";
import { registry, route } from "../../http/route";
import type { AppEnv } from "../../http/types";
import { buildOpenApi } from "../../http/openapi";

export function registerMetaRoutes(app: Hono<AppEnv>) {
  route(app, {
    method: "get",
    path: "/api/health",
    summary: "Liveness check",
    tags: ["meta"],
    auth: false,
    responses: { 200: { description: "Up", schema: z.object({ status: z.literal("ok") }) } },
    handler: (c) => c.json({ status: "ok" as const }),
  });

  let doc: unknown;
  route(app, {
    method: "get",
    path: "/api/openapi.json",
    summary: "This API's OpenAPI 3.1 document",
    tags: ["meta"],
    auth: false,
    responses: { 200: { description: "OpenAPI document" } },
    handler: (c) => c.json((doc ??= buildOpenApi(registry))),
  });
}
