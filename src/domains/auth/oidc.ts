/**
 * Browser sign-in by OpenID Connect: authorization code flow with PKCE (OpenID Connect Core 1.0
 * section 3.1; RFC 7636 S256). The worker is the client: it sends the browser to the provider,
 * takes the code back at the callback, exchanges it with the verifier, checks the ID token's nonce,
 * verifies the access token like any other (DECISIONS D1) and sets it as the auth cookie.
 * The attempt's state, nonce and verifier travel in a short-lived, HMAC-signed, HTTP-only cookie.
 */
import { jwtVerify } from "jose";
import type { Config } from "../../env";
import { keySetFor, verifyAccessToken } from "../../http/auth";
import type { AuthUser } from "../../http/types";
import { base64url } from "../../kernel/base64";
import { hmacSha256, randomToken, timingSafeEqualStr } from "../../lib/crypto";
import { AppError, ErrorCode } from "../../lib/errors";

export const FLOW_COOKIE = "oidc_flow";
export const FLOW_TTL_SECONDS = 600;
export const CALLBACK_PATH = "/api/auth/callback";

type Discovery = { issuer: string; authorization_endpoint: string; token_endpoint: string };
type Flow = { state: string; nonce: string; verifier: string; next: string; exp: number };

const discoveries = new Map<string, Promise<Discovery>>();

function clientOf(config: Config) {
  if (!config.OIDC_CLIENT_ID || !config.IDP_ISSUER)
    throw new AppError(
      ErrorCode.SERVICE_UNAVAILABLE,
      "Sign-in is not configured (OIDC_CLIENT_ID, IDP_ISSUER)",
    );
  return { clientId: config.OIDC_CLIENT_ID, issuer: config.IDP_ISSUER };
}

async function discover(config: Config): Promise<Discovery> {
  const { issuer } = clientOf(config);
  const url =
    config.OIDC_DISCOVERY_URL ?? `${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`;
  let hit = discoveries.get(url);
  if (!hit) {
    hit = (async () => {
      const res = await fetch(url, { headers: { accept: "application/json" } });
      if (!res.ok) throw new Error(`discovery ${res.status}`);
      const doc = (await res.json()) as Partial<Discovery>;
      // OpenID Connect Discovery 1.0 section 4.3: the issuer must be the one configured.
      if (doc.issuer !== issuer || !doc.authorization_endpoint || !doc.token_endpoint)
        throw new Error("discovery document does not match IDP_ISSUER");
      return doc as Discovery;
    })();
    discoveries.set(url, hit);
    hit.catch(() => discoveries.delete(url));
  }
  try {
    return await hit;
  } catch {
    throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, "The identity provider cannot be reached");
  }
}

async function s256(verifier: string): Promise<string> {
  return base64url.encode(
    new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))),
  );
}

async function sealFlow(secret: string, flow: Flow): Promise<string> {
  const body = base64url.encode(new TextEncoder().encode(JSON.stringify(flow)));
  return `${body}.${base64url.encode(await hmacSha256(secret, `oidc-flow|${body}`))}`;
}

async function openFlow(secret: string, cookie: string | undefined): Promise<Flow | null> {
  const m = /^([A-Za-z0-9_-]{1,4000})\.([A-Za-z0-9_-]{20,100})$/.exec(cookie ?? "");
  if (!m) return null;
  if (!timingSafeEqualStr(m[2]!, base64url.encode(await hmacSha256(secret, `oidc-flow|${m[1]}`))))
    return null;
  try {
    const flow = JSON.parse(new TextDecoder().decode(base64url.decode(m[1]!))) as Flow;
    return flow.exp * 1000 > Date.now() ? flow : null;
  } catch {
    return null;
  }
}

/** Only same-origin app paths: never an open redirect. */
export function safeNext(next: string | undefined): string {
  return next && /^\/(?![/\\])[^\s\\]*$/.test(next) && !next.startsWith("/api/") ? next : "/vault";
}

/** Starts a sign-in: the provider URL to send the browser to, and the flow cookie's value. */
export async function beginSignIn(
  config: Config,
  origin: string,
  next: string | undefined,
): Promise<{ location: string; cookie: string }> {
  const { clientId } = clientOf(config);
  const doc = await discover(config);
  const flow: Flow = {
    state: randomToken(),
    nonce: randomToken(),
    verifier: randomToken(48),
    next: safeNext(next),
    exp: Math.floor(Date.now() / 1000) + FLOW_TTL_SECONDS,
  };
  const url = new URL(doc.authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: origin + CALLBACK_PATH,
    scope: config.OIDC_SCOPES,
    state: flow.state,
    nonce: flow.nonce,
    code_challenge: await s256(flow.verifier),
    code_challenge_method: "S256",
    // A vault sign-in is a real one: it also refreshes auth_time for step-up (DECISIONS D3), and the
    // "confirm it's you" step leans on it; max_age=0 says the same to providers that ignore prompt.
    prompt: "login",
    max_age: "0",
  }).toString();
  return { location: url.toString(), cookie: await sealFlow(config.CSRF_SECRET, flow) };
}

export class SignInRefused extends Error {}

/** Completes a sign-in at the callback: the verified user, the access token and where to go. */
export async function completeSignIn(
  config: Config,
  origin: string,
  query: { code?: string; state?: string; error?: string },
  flowCookie: string | undefined,
): Promise<{ token: string; user: AuthUser; expiresIn: number; next: string }> {
  const flow = await openFlow(config.CSRF_SECRET, flowCookie);
  // RFC 6749 section 10.12: the state must be the one this browser's attempt sent.
  if (!flow || !query.state || !timingSafeEqualStr(query.state, flow.state))
    throw new SignInRefused("The sign-in attempt expired or was started elsewhere");
  if (query.error)
    throw new SignInRefused(
      `The identity provider refused the sign-in (${query.error.slice(0, 100)})`,
    );
  if (!query.code) throw new SignInRefused("The identity provider sent no authorization code");
  const { clientId } = clientOf(config);
  const doc = await discover(config);
  const form = new URLSearchParams({
    grant_type: "authorization_code",
    code: query.code,
    redirect_uri: origin + CALLBACK_PATH,
    code_verifier: flow.verifier,
    client_id: clientId,
  });
  const headers: Record<string, string> = {
    "content-type": "application/x-www-form-urlencoded",
    accept: "application/json",
  };
  if (config.OIDC_CLIENT_SECRET)
    headers.authorization = `Basic ${btoa(`${encodeURIComponent(clientId)}:${encodeURIComponent(config.OIDC_CLIENT_SECRET)}`)}`;
  let body: { access_token?: string; id_token?: string; expires_in?: number; error?: string };
  try {
    const res = await fetch(doc.token_endpoint, { method: "POST", headers, body: form });
    body = (await res.json()) as typeof body;
    if (!res.ok)
      throw new SignInRefused(
        `The code exchange was refused (${String(body.error ?? res.status).slice(0, 100)})`,
      );
  } catch (e) {
    if (e instanceof SignInRefused) throw e;
    throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, "The identity provider cannot be reached");
  }
  if (!body.access_token || !body.id_token)
    throw new SignInRefused("The identity provider sent no tokens");
  let idSub: string | undefined;
  try {
    const { payload } = await jwtVerify(body.id_token, keySetFor(config), {
      algorithms: ["RS256", "ES256"],
      issuer: config.IDP_ISSUER,
      audience: clientId,
    });
    if (typeof payload.nonce !== "string" || !timingSafeEqualStr(payload.nonce, flow.nonce))
      throw new Error("nonce");
    idSub = payload.sub;
  } catch {
    throw new SignInRefused("The ID token is not valid for this sign-in");
  }
  let user: AuthUser;
  try {
    user = await verifyAccessToken(config, body.access_token);
  } catch {
    throw new SignInRefused("The access token is not valid for this service");
  }
  if (user.id !== idSub) throw new SignInRefused("The tokens name different users");
  return {
    token: body.access_token,
    user,
    expiresIn: Math.max(60, Math.min(body.expires_in ?? 3600, 24 * 3600)),
    next: flow.next,
  };
}
