import type { Context, Hono } from "hono";
import { dbFor } from "../../db/client";
import type { AccountKeyRow } from "../../db/schema";
import { route } from "../../http/route";
import type { AppEnv } from "../../http/types";
import { AppError, ErrorCode } from "../../lib/errors";
import * as repo from "./repo";
import { AccountKeyResponse, PutAccountKeyBody } from "./schema";

const dbOf = (c: Context<AppEnv>) => dbFor(c.env, c.get("user").id);

const view = (row: AccountKeyRow) => ({
  key_version: row.keyVersion,
  revision: row.revision,
  kdf_iterations: row.kdfIterations,
  wrapped_key: row.wrappedKey,
  updated_at: row.updatedAt,
});

/**
 * The caller's account key wrap (docs/decisions/crypto.md, "Crypto: an account key between the
 * passphrase and the vault"): not in the spec, so the path and bodies are ours. The server only
 * stores the wrap and orders its writes; the client checks the wrap's associated data.
 */
export function registerAccountKeyRoutes(app: Hono<AppEnv>) {
  route(app, {
    method: "get",
    path: "/api/account-key",
    summary:
      "The caller's account key, wrapped by their passphrase; null before the account has one",
    tags: ["account-key"],
    responses: { 200: { description: "The wrap", schema: AccountKeyResponse } },
    handler: async (c) => {
      const row = await repo.read(dbOf(c), c.get("user").id);
      return c.json({ account_key: row ? view(row) : null });
    },
  });

  route(app, {
    method: "put",
    path: "/api/account-key",
    summary:
      "Store the next wrap of the caller's account key: revision = stored + 1 (1 for the first), key_version never lower",
    tags: ["account-key"],
    body: PutAccountKeyBody,
    responses: { 200: { description: "Stored", schema: AccountKeyResponse } },
    handler: async (c, { body }) => {
      const userId = c.get("user").id;
      const db = dbOf(c);
      const stored = await repo.write(
        db,
        userId,
        {
          keyVersion: body.key_version,
          revision: body.revision,
          kdfIterations: body.kdf_iterations,
          wrappedKey: body.wrapped_key,
        },
        new Date().toISOString(),
      );
      const row = await repo.read(db, userId);
      if (!stored || !row)
        throw new AppError(ErrorCode.CONFLICT, "Stale account key revision", {
          extra: { revision: row?.revision ?? 0, key_version: row?.keyVersion ?? null },
        });
      return c.json({ account_key: view(row) });
    },
  });
}
