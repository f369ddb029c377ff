/**
 * Machine tokens for a shared vault (docs/cli.md, "Tokens for machines and agents"): a member's
 * device makes one (the vault key wrapped under the token's own key), lists, revokes and reads the
 * log; a machine holding only the token string reads the vault's ciphertext and opens it here.
 */
import { ApiError, type ApiClient, type EndpointDef, type WireResponse } from "../api";
import type { VaultKeys } from "../crypto";
import type { OpenedVault } from "./shared-vault";
import {
  authenticatorHash,
  newTokenSecret,
  openTokenCopy,
  parseTokenSecret,
  tokenKeys,
  wrapVaultKeyForToken,
} from "./token-crypto";
import { openVaultName, sharedVaultKeys } from "./vault-crypto";

export const TOKEN_ENDPOINTS = {
  create: {
    method: "POST",
    path: "/api/vaults/{id}/tokens",
    body: ["token_id", "name", "expires_at", "key_version", "wrapped_key", "auth_hash"],
    reads: ["token"],
  },
  list: { method: "GET", path: "/api/tokens", reads: ["tokens"] },
  reads: {
    method: "GET",
    path: "/api/tokens/reads",
    query: ["token_id", "limit"],
    reads: ["reads"],
  },
  revoke: { method: "DELETE", path: "/api/tokens/{token_id}", reads: ["token"] },
} as const satisfies Record<string, EndpointDef>;

export type MachineToken = WireResponse<"/api/tokens", "get">["tokens"][number];
export type TokenRead = WireResponse<"/api/tokens/reads", "get">["reads"][number];
type TokenReadAnswer = WireResponse<"/api/token/vault", "get">;
export type TokenEntry = TokenReadAnswer["entries"][number];

export function tokensApi(api: ApiClient) {
  const E = TOKEN_ENDPOINTS;
  return {
    list: async () => (await api.request(E.list)).tokens,
    reads: async (tokenId?: string, limit = 100) =>
      (
        await api.request(E.reads, {
          query: { ...(tokenId ? { token_id: tokenId } : {}), limit: String(limit) },
        })
      ).reads,
    revoke: async (token_id: string) =>
      (await api.request(E.revoke, { params: { token_id } })).token,
    create: async (
      vaultId: string,
      body: {
        token_id: string;
        name: string;
        expires_at: string;
        key_version: number;
        wrapped_key: string;
        auth_hash: string;
      },
    ) => (await api.request(E.create, { params: { id: vaultId }, body })).token,
  };
}

/**
 * A new token for an opened vault: the string (shown once, kept nowhere) and the server's record.
 * The server gets the wrapped key, the authenticator's hash and the token's id; never the secret.
 */
export async function makeVaultToken(
  api: ApiClient,
  v: OpenedVault,
  name: string,
  expiresAt: Date,
): Promise<{ text: string; token: MachineToken }> {
  const t = newTokenSecret();
  const keys = await tokenKeys(t);
  const keyVersion = v.keys.version ?? 1;
  const wrapped = await wrapVaultKeyForToken(v.vaultKey, keys.wrapKey, {
    tokenId: t.id,
    vaultId: v.vault.id,
    keyVersion,
  });
  const token = await tokensApi(api).create(v.vault.id, {
    token_id: t.id,
    name,
    expires_at: expiresAt.toISOString(),
    key_version: keyVersion,
    wrapped_key: wrapped,
    auth_hash: await authenticatorHash(keys.authenticator),
  });
  return { text: t.text, token };
}

export class TokenFormatError extends Error {
  constructor() {
    super("This is not a vault token (vtk_<id>_<secret>)");
    this.name = "TokenFormatError";
  }
}

export type TokenView = {
  token: TokenReadAnswer["token"];
  vaultId: string;
  vaultName: string;
  keys: VaultKeys;
  entries: TokenEntry[];
};

/**
 * One read with the token alone (no sign-in): `GET /api/token/vault` with the authenticator and the
 * reason, then the vault key opened with the token's wrapping key. The server logs the read with
 * the reason; a refusal comes back as the server's ApiError.
 */
export async function readWithToken(
  server: string,
  text: string,
  reason: string | null,
  fetchImpl: typeof fetch = fetch,
): Promise<TokenView> {
  const t = parseTokenSecret(text);
  if (!t) throw new TokenFormatError();
  const keys = await tokenKeys(t);
  const headers: Record<string, string> = { "x-vault-token": `${t.id}.${keys.authenticator}` };
  // Percent-encoded: a header carries bytes of Latin-1 only, a reason any text.
  if (reason) headers["x-vault-reason"] = encodeURIComponent(reason);
  const res = await fetchImpl(new URL("/api/token/vault", server), { headers });
  const body = (await res.json().catch(() => null)) as unknown;
  if (!res.ok) {
    const err = body as { error?: string; code?: string; status?: number } | null;
    throw new ApiError(res.status, {
      error: err?.error ?? `HTTP ${res.status}`,
      code: err?.code ?? "INTERNAL_ERROR",
      status: res.status,
    } as ApiError["body"]);
  }
  const answer = body as TokenReadAnswer;
  const copy = { tokenId: t.id, vaultId: answer.vault.id, keyVersion: answer.vault.key_version };
  if (answer.token.id !== t.id || answer.token.vault_id !== answer.vault.id)
    throw new Error("The server answered for another token");
  const vaultKey = await openTokenCopy(keys.wrapKey, answer.wrapped_key, copy);
  return {
    token: answer.token,
    vaultId: answer.vault.id,
    vaultName: await openVaultName(vaultKey, answer.vault.id, answer.vault.sealed_name),
    keys: await sharedVaultKeys(vaultKey, answer.vault.key_version),
    entries: answer.entries,
  };
}
