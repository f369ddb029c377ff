import type { Db } from "../../db/client";
import type { Config } from "../../env";
import { base64url } from "../../kernel/base64";
import type { SealedColumn } from "../../db/reseal";
import {
  hmacSha256,
  randomId,
  randomToken,
  seal,
  sha256Hex,
  timingSafeEqualStr,
  unseal,
} from "../../lib/crypto";
import { fetchAccountEmail, type OAuthProvider, type ProviderConfig } from "./providers";
import * as repo from "./repo";
import { logJson } from "../../lib/log";

/** A pending authorization lives ten minutes. */
export const STATE_TTL_MS = 10 * 60 * 1000;

export type TokenSet = { accessToken: string; refreshToken: string | null };

export const secretAad = (userId: string, provider: string) =>
  `mail-integration|${userId}|${provider}`;
const verifierAad = (id: string) => `oauth-verifier|${id}`;

/** The flow cookie's name and lifetime: it only has to outlive one consent screen. */
export const FLOW_COOKIE = "oauth_flow";
const FLOW_VALUE = /^[A-Za-z0-9_-]{43}$/;

/** The browser's flow secret: the one it already holds, else a new one (parallel flows share it). */
export function flowSecret(current: string | undefined): string {
  return current && FLOW_VALUE.test(current) ? current : randomToken(32);
}

const flowHash = async (flow: string | undefined) =>
  flow && FLOW_VALUE.test(flow) ? sha256Hex(`oauth-flow|${flow}`) : "none";

/**
 * The state's HMAC covers the user, the provider, the expiry and the hash of the browser's flow
 * cookie: a state is worth nothing in a browser that did not start it (login CSRF through the
 * callback, RFC 6749 section 10.12).
 */
async function stateSignature(
  config: Config,
  id: string,
  userId: string,
  provider: string,
  exp: number,
  flowDigest: string,
): Promise<string> {
  return base64url.encode(
    await hmacSha256(
      config.CSRF_SECRET,
      `oauth-state|${id}|${userId}|${provider}|${exp}|${flowDigest}`,
    ),
  );
}

/** Only a state of the right shape is worth bouncing for a session (see the callback route). */
export const wellFormedState = (state: string | undefined) =>
  state !== undefined && STATE.test(state);
const STATE = /^([0-9a-f-]{36})\.(\d{1,15})\.([A-Za-z0-9_-]{43})$/;

/** RFC 7636 S256 challenge. */
async function challengeOf(verifier: string): Promise<string> {
  return base64url.encode(
    new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))),
  );
}

/**
 * Starts an authorization code flow with PKCE (RFC 7636). The state is `<id>.<exp>.<hmac>`, the
 * HMAC binding it to the user and provider; the verifier stays server-side, sealed, until the callback.
 */
export async function buildAuthUrl(
  db: Db,
  config: Config,
  p: ProviderConfig,
  userId: string,
  redirectUri: string,
  flow: string,
): Promise<string> {
  const id = randomId();
  const exp = Date.now() + STATE_TTL_MS;
  const verifier = randomToken(48);
  await repo.insertState(db, {
    id,
    userId,
    provider: p.name,
    codeVerifier: await seal(config.dataKeys, verifier, verifierAad(id)),
    expiresAt: exp,
  });
  const url = new URL(p.authUrl);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", p.clientId);
  url.searchParams.set("redirect_uri", redirectUri);
  url.searchParams.set("scope", p.scopes);
  url.searchParams.set(
    "state",
    `${id}.${exp}.${await stateSignature(config, id, userId, p.name, exp, await flowHash(flow))}`,
  );
  url.searchParams.set("code_challenge", await challengeOf(verifier));
  url.searchParams.set("code_challenge_method", "S256");
  url.searchParams.set("access_type", "offline");
  url.searchParams.set("prompt", "consent");
  return url.toString();
}

export class StateError extends Error {}

/**
 * Checks and consumes a state. Refused: malformed, forged, for another provider, expired, already
 * used, opened in a browser without the flow cookie that started it, without a session
 * (`session_required`), or with another user's session.
 */
export async function consumeState(
  db: Db,
  config: Config,
  provider: OAuthProvider,
  state: string,
  callerId: string | null,
  flow: string | undefined,
) {
  const m = STATE.exec(state);
  if (!m) throw new StateError("invalid_state");
  const [, id, expStr, sig] = m;
  const exp = Number(expStr);
  const row = await repo.takeState(db, id);
  if (!row) throw new StateError("invalid_state");
  const expected = await stateSignature(
    config,
    id,
    row.userId,
    provider,
    exp,
    await flowHash(flow),
  );
  if (!timingSafeEqualStr(sig, expected) || row.provider !== provider || row.expiresAt !== exp)
    throw new StateError("invalid_state");
  if (exp < Date.now()) throw new StateError("expired_state");
  if (callerId === null) throw new StateError("session_required");
  if (callerId !== row.userId) throw new StateError("invalid_state");
  return {
    userId: row.userId,
    verifier: await unseal(config.dataKeys, row.codeVerifier, verifierAad(id)),
  };
}

type TokenResponse = {
  access_token?: string;
  refresh_token?: string;
  expires_in?: number;
  scope?: string;
  token_type?: string;
  error?: string;
};

export class TokenEndpointError extends Error {
  constructor(
    readonly oauthError: string,
    readonly status: number,
  ) {
    super(`token endpoint refused: ${oauthError}`);
  }
}

/** RFC 6749 section 4.1.3 / 6: form-encoded POST, client credentials in the body. */
async function tokenRequest(
  p: ProviderConfig,
  params: Record<string, string>,
): Promise<TokenResponse & { access_token: string }> {
  const body = new URLSearchParams({ ...params, client_id: p.clientId });
  if (p.clientSecret) body.set("client_secret", p.clientSecret);
  const res = await fetch(p.tokenUrl, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body,
  });
  let json: TokenResponse = {};
  try {
    json = (await res.json()) as TokenResponse;
  } catch {
    json = {};
  }
  if (!res.ok || !json.access_token)
    throw new TokenEndpointError(json.error ?? `http_${res.status}`, res.status);
  return json as TokenResponse & { access_token: string };
}

export async function exchangeCode(
  p: ProviderConfig,
  code: string,
  verifier: string,
  redirectUri: string,
) {
  const t = await tokenRequest(p, {
    grant_type: "authorization_code",
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
  });
  const email = await fetchAccountEmail(p, t.access_token);
  return {
    tokens: { accessToken: t.access_token, refreshToken: t.refresh_token ?? null },
    expiresAt: Date.now() + (t.expires_in ?? 3600) * 1000,
    scope: t.scope ?? p.scopes,
    email,
  };
}

export async function refreshGrant(p: ProviderConfig, refreshToken: string) {
  const t = await tokenRequest(p, { grant_type: "refresh_token", refresh_token: refreshToken });
  return {
    accessToken: t.access_token,
    refreshToken: t.refresh_token ?? refreshToken,
    expiresAt: Date.now() + (t.expires_in ?? 3600) * 1000,
  };
}

/**
 * RFC 7009 revocation, best effort: revoking the refresh token ends the grant at the provider. A
 * failure or a slow provider never keeps the user from disconnecting.
 */
export async function revokeGrant(p: ProviderConfig, tokens: TokenSet): Promise<void> {
  if (!p.revokeUrl) return;
  const body = new URLSearchParams({
    token: tokens.refreshToken ?? tokens.accessToken,
    token_type_hint: tokens.refreshToken ? "refresh_token" : "access_token",
    client_id: p.clientId,
  });
  if (p.clientSecret) body.set("client_secret", p.clientSecret);
  try {
    const res = await fetch(p.revokeUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body,
      signal: AbortSignal.timeout(5000),
    });
    await res.body?.cancel();
  } catch {
    logJson("warn", "token revocation failed; the grant is deleted locally", { provider: p.name });
  }
}

export async function sealTokens(
  config: Config,
  userId: string,
  provider: string,
  tokens: TokenSet,
): Promise<string> {
  return seal(config.dataKeys, JSON.stringify(tokens), secretAad(userId, provider));
}

export async function unsealTokens(
  config: Config,
  userId: string,
  provider: string,
  secret: string,
): Promise<TokenSet> {
  return JSON.parse(await unseal(config.dataKeys, secret, secretAad(userId, provider))) as TokenSet;
}

/** Mailbox secrets (OAuth tokens and IMAP credentials share the AAD form) for the re-seal pass (D10). */
export const mailSecretsColumn: SealedColumn = {
  table: "mail_integrations",
  key: "id",
  column: "secret",
  uses: ["user_id", "provider"],
  aad: (r) => secretAad(r.user_id, r.provider),
};
