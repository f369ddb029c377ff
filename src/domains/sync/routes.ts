import type { Context, Hono } from "hono";
import { dbFor } from "../../db/client";
import { entryIdClaims } from "../../db/entry-ids";
import { route } from "../../http/route";
import type { AppEnv } from "../../http/types";
import { SyncPullQuery, SyncPullResponse, SyncPushBody, SyncPushResponse } from "./schema";
import { vaultLimits } from "../passwords";
import { SyncService } from "./service";
import { registerLiveSyncRoute } from "./live";

const dbOf = (c: Context<AppEnv>) => dbFor(c.env, c.get("user").id);
const max = (c: Context<AppEnv>) => vaultLimits(c.get("config"));

export function registerSyncRoutes(app: Hono<AppEnv>) {
  registerLiveSyncRoute(app);
  route(app, {
    method: "get",
    path: "/api/passwords/sync",
    summary:
      "Changes since a cursor (entries and tombstones); without one, or older than 30 days, every live entry",
    tags: ["sync"],
    rateLimit: ["sync_pull"],
    rateLimitConcurrent: true,
    query: SyncPullQuery,
    responses: { 200: { description: "Changes and the next cursor", schema: SyncPullResponse } },
    handler: async (c, { query }) => {
      // A client that reads the answer page by page asks for it one JSON text per line (service.ts, `PullFormat`).
      const format = /\bapplication\/x-ndjson\b/.test(c.req.header("accept") ?? "")
        ? "ndjson"
        : "json";
      const body = await new SyncService(dbOf(c), max(c), entryIdClaims(c.env), c.env).pull(
        c.get("user").id,
        query.since,
        { resume: query.resume, format },
      );
      if (format === "json")
        return c.body(body, 200, { "Content-Type": "application/json", Vary: "Accept" });
      // The platform compresses the JSON types it knows by itself; NDJSON is not among them, so the
      // answer names its coding and the runtime compresses it as it streams (encodeBody "automatic").
      const gzip = /\bgzip\b/.test(c.req.header("accept-encoding") ?? "");
      return c.body(body, 200, {
        "Content-Type": "application/x-ndjson",
        Vary: "Accept, Accept-Encoding",
        ...(gzip ? { "Content-Encoding": "gzip" } : {}),
      });
    },
  });

  route(app, {
    method: "post",
    path: "/api/passwords/sync",
    summary:
      "Apply up to 100 offline mutations in one transaction; last write wins, the server wins ties",
    tags: ["sync"],
    rateLimit: ["sync_push"],
    body: SyncPushBody,
    responses: {
      200: { description: "One result per mutation, in order", schema: SyncPushResponse },
    },
    handler: async (c, { body }) =>
      c.json(
        await new SyncService(dbOf(c), max(c), entryIdClaims(c.env), c.env).push(
          c.get("user").id,
          body.mutations,
        ),
      ),
  });
}
