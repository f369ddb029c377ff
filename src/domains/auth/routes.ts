import type { Hono } from "hono";
import { z } from "zod";
import { issueCsrfToken } from "../../http/csrf";
import { route } from "../../http/route";
import type { AppEnv } from "../../http/types";

export function registerAuthRoutes(app: Hono<AppEnv>) {
  route(app, {
    method: "get",
    path: "/api/auth/csrf-token",
    summary: "Issue a CSRF token for the caller (DECISIONS D2)",
    tags: ["auth"],
    responses: { 200: { description: "Token", schema: z.object({ csrfToken: z.string() }) } },
    handler: async (c) => {
      const { token } = await issueCsrfToken(c.get("config").CSRF_SECRET, c.get("user").id);
      c.header("Cache-Control", "no-store");
      return c.json({ csrfToken: token });
    },
  });
}
