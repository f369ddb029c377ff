import { tokenClient } from "../../../durable-objects/token-refresher";
import { dbFor } from "../../db/client";
import { loadConfig, type Bindings } from "../../env";
import { notify } from "../notifications";
import { refreshGrant, sealTokens, TokenEndpointError, unsealTokens } from "./oauth";
import { providerConfig, type OAuthProvider } from "./providers";
import * as repo from "./repo";
import { errorName, logJson } from "../../lib/log";

export type FreshToken =
  | { ok: true; accessToken: string; expiresAt: number }
  | { ok: false; reason: "not_connected" | "disconnected" | "refresh_failed" | "unavailable" };

/** The typed client of the user's TokenRefresher object: every token request goes through it. */
export const tokensFor = (env: Bindings, userId: string) =>
  tokenClient<FreshToken, OAuthProvider>(env.TOKEN_REFRESHER, userId);

/** A token this close to expiry is refreshed before use. */
const EARLY_MS = 60_000;

/**
 * Returns a usable access token, refreshing it when it is near expiry or when `force` is set.
 * Runs inside the user's TokenRefresher object, so two refreshes for one user never overlap
 * (providers rotate refresh tokens: a second, racing refresh would present a spent one).
 * A refused refresh marks the integration disconnected and tells the user to reconnect.
 */
export async function freshToken(
  env: Bindings,
  userId: string,
  provider: OAuthProvider,
  force: boolean,
): Promise<FreshToken> {
  const config = loadConfig(env);
  const db = dbFor(env, userId);
  const row = await repo.findIntegration(db, userId, provider);
  if (!row) return { ok: false, reason: "not_connected" };
  if (row.status !== "active") return { ok: false, reason: "disconnected" };
  const tokens = await unsealTokens(config, userId, provider, row.secret);
  if (!force && row.expiresAt !== null && row.expiresAt - EARLY_MS > Date.now()) {
    return { ok: true, accessToken: tokens.accessToken, expiresAt: row.expiresAt };
  }
  const p = providerConfig(config, provider);
  if (!tokens.refreshToken) return markDisconnected(env, userId, provider, row.email);
  try {
    const next = await refreshGrant(p, tokens.refreshToken);
    await repo.updateIntegration(db, userId, provider, {
      secret: await sealTokens(config, userId, provider, {
        accessToken: next.accessToken,
        refreshToken: next.refreshToken,
      }),
      expiresAt: next.expiresAt,
      updatedAt: new Date().toISOString(),
    });
    return { ok: true, accessToken: next.accessToken, expiresAt: next.expiresAt };
  } catch (err) {
    // Only a refusal by the token endpoint (RFC 6749 section 5.2, a 4xx) means the grant is dead; a
    // network failure or 5xx leaves the integration as it is for the next attempt.
    if (err instanceof TokenEndpointError && err.status >= 400 && err.status < 500)
      return markDisconnected(env, userId, provider, row.email);
    logJson("warn", "token refresh failed transiently", { provider, error: errorName(err) });
    return { ok: false, reason: "unavailable" };
  }
}

async function markDisconnected(
  env: Bindings,
  userId: string,
  provider: string,
  email: string,
): Promise<FreshToken> {
  const db = dbFor(env, userId);
  const now = new Date().toISOString();
  await repo.updateIntegration(db, userId, provider, { status: "disconnected", updatedAt: now });
  await notify(db, {
    userId,
    type: "integration_disconnected",
    title: "Reconnect your mailbox",
    body: `Access to ${email} (${provider}) has expired or was revoked. Reconnect it to keep account discovery and password resets working.`,
    color: "warning",
    icon: "mail",
    actionUrl: "/mailboxes",
    metadata: { provider, email },
  });
  return { ok: false, reason: "refresh_failed" };
}
