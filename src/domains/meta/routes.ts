import type { Hono } from "hono";
import { z } from "zod";
import { registry, route } from "../../http/route";
import type { AppEnv } from "../../http/types";
import { buildOpenApi } from "../../http/openapi";
import { logJson } from "../../http/request-log";
import { health } from "./health";

const Check = z.object({
  binding: z.string(),
  kind: z.enum(["d1", "r2", "queue"]),
  ok: z.boolean(),
  ms: z.number().int().optional(),
  error: z.enum(["unreachable", "timeout", "not bound"]).optional(),
  note: z.string().optional(),
});
/** The spec's `{status: "ok"}`, with the checks beside it. */
const HealthBody = z.object({ status: z.enum(["ok", "degraded"]), checks: z.array(Check) });

export function registerMetaRoutes(app: Hono<AppEnv>) {
  route(app, {
    method: "get",
    path: "/api/health",
    summary: "Liveness, and whether each binding answers",
    tags: ["meta"],
    auth: false,
    responses: {
      200: { description: "Up, every binding answering", schema: HealthBody },
      503: {
        description:
          'Up, but a binding does not answer (`status: "degraded"`; the failing check says which)',
        schema: HealthBody,
      },
    },
    handler: async (c) => {
      const log = (binding: string, err: unknown) =>
        logJson("error", "health probe failed", {
          requestId: c.get("requestId"),
          binding,
          error: err instanceof Error ? err.name : "error",
        });
      const body = await health(c.env, c.get("config"), log);
      return c.json(body, body.status === "ok" ? 200 : 503);
    },
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
