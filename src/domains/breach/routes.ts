import type { Hono } from "hono";
import { z } from "zod";
import { route } from "../../http/route";
import type { AppEnv } from "../../http/types";
import { RANGE_PREFIX, RANGE_TTL_SECONDS, rangeFor } from "./range";

const PrefixParam = z.object({
  prefix: z.string().regex(RANGE_PREFIX, "must be five hexadecimal characters"),
});

export function registerBreachRoutes(app: Hono<AppEnv>) {
  route(app, {
    method: "get",
    path: "/api/breach/range/:prefix",
    summary:
      "Pwned Passwords range of a five-hex-character SHA-1 prefix (k-anonymity; padded, edge-cached)",
    tags: ["breach"],
    params: PrefixParam,
    rateLimit: ["breach_range"],
    responses: {
      200: { description: "Lines SUFFIX:COUNT (count 0 is padding)", contentType: "text/plain" },
    },
    handler: async (c, { params }) => {
      const body = await rangeFor(c.get("config").PWNED_RANGE_URL, params.prefix.toUpperCase());
      return c.body(body, 200, {
        "content-type": "text/plain; charset=utf-8",
        // Public data, but asked for by a signed-in person: only their browser keeps it.
        "cache-control": `private, max-age=${RANGE_TTL_SECONDS}`,
        "x-content-type-options": "nosniff",
      });
    },
  });
}
