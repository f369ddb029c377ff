import type { Context, Hono } from "hono";
import { route } from "../../http/route";
import type { AppEnv } from "../../http/types";
import { AppError, ErrorCode, validationError } from "../../lib/errors";
import { ctxOf } from "./request";
import {
  CreateTokenBody,
  REASON,
  ReadsQuery,
  ReadsResponse,
  TOKEN_HEADER,
  TokenListResponse,
  TokenParam,
  TokenReadResponse,
  TokenResponse,
  VaultTokenParam,
} from "./token-schema";
import { VaultTokenService } from "./tokens";

const tags = ["vault tokens"];
const service = (c: Context<AppEnv>) => new VaultTokenService(ctxOf(c));

/** The reason header, percent-encoded UTF-8; a malformed one is refused before anything is read. */
function reasonOf(c: Context<AppEnv>): string | null {
  const raw = c.req.header("x-vault-reason");
  if (raw === undefined || raw === "") return null;
  let text: string;
  try {
    text = decodeURIComponent(raw);
  } catch {
    throw validationError("X-Vault-Reason is not percent-encoded UTF-8", [
      { field: "x-vault-reason", message: "not percent-encoded UTF-8" },
    ]);
  }
  const ok = REASON.safeParse(text);
  if (!ok.success)
    throw validationError("X-Vault-Reason is too long or holds control characters", [
      { field: "x-vault-reason", message: ok.error.issues[0]?.message ?? "invalid" },
    ]);
  return text;
}

/**
 * Read-only tokens for machines and agents (docs/cli.md, "Tokens for machines and agents"): the
 * person makes (after a recent sign-in), lists and revokes them and reads their log; a machine
 * reads the token's vault with the token alone.
 */
export function registerVaultTokenRoutes(app: Hono<AppEnv>) {
  route(app, {
    method: "post",
    path: "/api/vaults/:id/tokens",
    summary:
      "Make a read-only token for a vault (a member; the vault key wrapped under the token's key)",
    tags,
    rateLimit: ["vault_tokens"],
    stepUp: { maxAge: 300, sensitive: true },
    params: VaultTokenParam,
    body: CreateTokenBody,
    responses: {
      201: { description: "Made", schema: TokenResponse },
      409: { description: "A stale key version, or the token id is taken" },
      422: { description: "Too many live tokens" },
    },
    handler: async (c, { params, body }) =>
      c.json(await service(c).create(c.get("user"), params.id, body), 201),
  });
  route(app, {
    method: "get",
    path: "/api/tokens",
    summary: "The caller's machine tokens, newest first, with state and last use",
    tags,
    rateLimit: ["vault_tokens"],
    responses: { 200: { description: "Tokens", schema: TokenListResponse } },
    handler: async (c) => c.json(await service(c).list(c.get("user"))),
  });
  route(app, {
    method: "get",
    path: "/api/tokens/reads",
    summary: "The read log of the caller's tokens (name and reason of each read), newest first",
    tags,
    rateLimit: ["vault_tokens"],
    query: ReadsQuery,
    responses: { 200: { description: "Reads", schema: ReadsResponse } },
    handler: async (c, { query }) =>
      c.json(await service(c).reads(c.get("user"), query.token_id, query.limit)),
  });
  route(app, {
    method: "delete",
    path: "/api/tokens/:token_id",
    summary: "Revoke one of the caller's tokens at once",
    tags,
    rateLimit: ["vault_tokens"],
    params: TokenParam,
    responses: { 200: { description: "Revoked", schema: TokenResponse } },
    handler: async (c, { params }) =>
      c.json(await service(c).revoke(c.get("user"), params.token_id)),
  });
  route(app, {
    method: "get",
    path: "/api/token/vault",
    summary:
      "A token's read (X-Vault-Token; X-Vault-Reason logged): its vault's entries, ciphertext only",
    tags,
    auth: false,
    rateLimit: ["vault_token_read"],
    responses: {
      200: { description: "The vault's key copy and entries", schema: TokenReadResponse },
      401: { description: "No token, a wrong one, revoked or expired" },
      403: { description: "Its maker left the vault, or the vault's key changed" },
    },
    handler: async (c) => {
      const m = TOKEN_HEADER.exec(c.req.header("x-vault-token") ?? "");
      if (!m) throw new AppError(ErrorCode.UNAUTHORIZED, "A token is required (X-Vault-Token)");
      const reason = reasonOf(c);
      return c.json(await service(c).read(m[1]!, m[2]!, reason), 200, {
        "Cache-Control": "no-store",
      });
    },
  });
}
