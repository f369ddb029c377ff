import type { Context, Hono } from "hono";
import { dbFor, directoryDb } from "../../db/client";
import { verifyAccessToken } from "../../http/auth";
import { getHostCookie, setHostCookie } from "../../http/cookies";
import { route } from "../../http/route";
import type { AppEnv } from "../../http/types";
import { FLOW_COOKIE, flowSecret, STATE_TTL_MS, wellFormedState } from "./oauth";
import { isConfigured, MAILBOX_PROVIDERS, type OAuthProvider } from "./providers";
import {
  AuthUrlResponse,
  CallbackQuery,
  ImapConnectBody,
  ImapConnectResponse,
  ImapVerifyBody,
  IntegrationsResponse,
  MailboxProvidersResponse,
  ProviderParam,
  RefreshResponse,
  SuccessResponse,
} from "./schema";
import { IntegrationService, redirectUri } from "./service";

function service(c: Context<AppEnv>, userId?: string) {
  // Without a caller (the OAuth callback) the service reaches the user's shard once the state names them.
  const db = userId ? dbFor(c.env, userId) : directoryDb(c.env);
  return new IntegrationService(db, c.env, c.get("config"));
}

/** The signed-in caller of an unauthenticated route, if any: a state bound to someone else is refused. */
async function optionalCaller(c: Context<AppEnv>): Promise<string | null> {
  const config = c.get("config");
  const header = c.req.header("authorization");
  const token = header
    ? /^Bearer\s+(\S+)$/i.exec(header)?.[1]
    : getHostCookie(c, config.AUTH_COOKIE);
  if (!token) return null;
  try {
    return (await verifyAccessToken(config, token)).id;
  } catch {
    return null;
  }
}

/**
 * A session cookie set SameSite=Strict is withheld on the provider's cross-site redirect. One
 * same-origin reload of the callback brings it along; the state is not looked at until then, and a
 * second arrival without a session is refused (`session_required`).
 */
function resumePage(requestUrl: string): string {
  const u = new URL(requestUrl);
  u.searchParams.set("resumed", "1");
  const href = `${u.pathname}${u.search}`.replaceAll("&", "&amp;").replaceAll('"', "&quot;");
  return `<!doctype html><meta charset="utf-8"><meta name="referrer" content="no-referrer"><meta http-equiv="refresh" content="0;url=${href}"><title>Connecting…</title><p>Connecting your mailbox…</p>`;
}

const callbackPath = (provider: OAuthProvider, legacy: boolean) =>
  legacy ? "/api/mailx/callback" : `/api/integrations/${provider}/callback`;

function registerOAuthFamily(app: Hono<AppEnv>, legacy: boolean) {
  const base = legacy ? "/api/mailx" : "/api/integrations/:provider";
  const tags = [legacy ? "mailx (original)" : "integrations"];
  const provider = (params: unknown): OAuthProvider =>
    legacy ? "mailx" : (params as { provider: OAuthProvider }).provider;
  const params = legacy ? undefined : ProviderParam;

  route(app, {
    method: "get",
    path: `${base}/auth`,
    summary:
      "Start the OAuth authorization code flow with PKCE; returns the provider's consent URL",
    tags,
    params,
    responses: { 200: { description: "Consent URL", schema: AuthUrlResponse } },
    handler: async (c, input) => {
      const p = provider(input.params);
      const userId = c.get("user").id;
      const flow = flowSecret(getHostCookie(c, FLOW_COOKIE));
      // Lax, not Strict: it must come back on the provider's top-level redirect to the callback.
      setHostCookie(c, FLOW_COOKIE, flow, {
        httpOnly: true,
        sameSite: "Lax",
        maxAge: STATE_TTL_MS / 1000,
      });
      return c.json({
        authUrl: await service(c, userId).authUrl(
          userId,
          p,
          redirectUri(c.get("config"), c.req.url, callbackPath(p, legacy)),
          flow,
        ),
      });
    },
  });

  route(app, {
    method: "get",
    path: `${base}/callback`,
    summary:
      "OAuth redirect target: needs the state, the flow cookie of the browser that started it and that user's session; stores the tokens sealed and redirects to the dashboard",
    tags,
    auth: false,
    csrf: false,
    rateLimit: ["auth"],
    params,
    query: CallbackQuery,
    responses: {
      200: {
        description:
          "Once, without a session cookie: a page reloading the callback same-site with resumed=1",
        contentType: "text/html",
      },
      302: { description: "Redirect to /dashboard?integration=<provider>&status=connected|error" },
    },
    handler: async (c, input) => {
      const p = provider(input.params);
      c.header("cache-control", "no-store");
      c.header("referrer-policy", "no-referrer");
      const caller = await optionalCaller(c);
      if (caller === null && !input.query.resumed && wellFormedState(input.query.state))
        return c.html(resumePage(c.req.url));
      const location = await service(c).callback(
        p,
        input.query,
        caller,
        getHostCookie(c, FLOW_COOKIE),
        redirectUri(c.get("config"), c.req.url, callbackPath(p, legacy)),
      );
      return c.redirect(location, 302);
    },
  });

  route(app, {
    method: "post",
    path: `${base}/disconnect`,
    summary: "Remove the integration and its stored tokens",
    tags,
    params,
    responses: { 200: { description: "Removed", schema: SuccessResponse } },
    handler: async (c, input) => {
      const userId = c.get("user").id;
      await service(c, userId).disconnect(userId, provider(input.params));
      return c.json({ success: true as const });
    },
  });

  route(app, {
    method: "post",
    path: `${base}/refresh`,
    summary: "Refresh the access token now (single flight per user)",
    tags,
    params,
    responses: { 200: { description: "Refreshed", schema: RefreshResponse } },
    handler: async (c, input) => {
      const userId = c.get("user").id;
      const r = await service(c, userId).refresh(userId, provider(input.params));
      return c.json({ success: true as const, expiresAt: r.expiresAt });
    },
  });
}

export function registerIntegrationRoutes(app: Hono<AppEnv>) {
  route(app, {
    method: "post",
    path: "/api/integrations/imap/connect",
    summary:
      "Check IMAP credentials by logging in, store them sealed, and mail the address a check message (pending_verification until it is read back)",
    tags: ["integrations"],
    rateLimit: ["auth"],
    body: ImapConnectBody,
    responses: {
      200: { description: "Connected, pending verification", schema: ImapConnectResponse },
    },
    handler: async (c, { body }) => {
      const userId = c.get("user").id;
      return c.json({
        success: true as const,
        ...(await service(c, userId).connectImap(userId, body)),
      });
    },
  });

  route(app, {
    method: "post",
    path: "/api/integrations/imap/verify",
    summary:
      "Read the check message back through the IMAP mailbox (the mailbox becomes active), or send a new one ({resend: true})",
    tags: ["integrations"],
    rateLimit: ["imap_verify"],
    body: ImapVerifyBody,
    responses: {
      200: {
        description: "The mailbox's status: active once verified",
        schema: ImapConnectResponse,
      },
      404: { description: "No IMAP mailbox connected" },
      410: { description: "The check message expired; send a new one" },
      422: { description: "The check message has not arrived in the mailbox yet" },
    },
    handler: async (c, { body }) => {
      const userId = c.get("user").id;
      return c.json({
        success: true as const,
        ...(await service(c, userId).verifyImap(userId, body.resend === true)),
      });
    },
  });

  route(app, {
    method: "post",
    path: "/api/integrations/imap/disconnect",
    summary: "Remove the IMAP integration and its stored credentials",
    tags: ["integrations"],
    responses: { 200: { description: "Removed", schema: SuccessResponse } },
    handler: async (c) => {
      const userId = c.get("user").id;
      await service(c, userId).disconnect(userId, "imap");
      return c.json({ success: true as const });
    },
  });

  route(app, {
    method: "get",
    path: "/api/user-integrations",
    summary: "The caller's connected mailboxes",
    tags: ["integrations"],
    responses: { 200: { description: "Integrations", schema: IntegrationsResponse } },
    handler: async (c) => {
      const userId = c.get("user").id;
      return c.json({ integrations: await service(c, userId).list(userId) });
    },
  });

  route(app, {
    method: "get",
    path: "/api/integrations/providers",
    summary:
      "The mailbox providers this deployment can connect (configured:false when the operator has not set one up)",
    tags: ["integrations"],
    responses: { 200: { description: "Mailbox providers", schema: MailboxProvidersResponse } },
    handler: (c) => {
      const config = c.get("config");
      return c.json({
        providers: MAILBOX_PROVIDERS.map((provider) => ({
          provider,
          configured: isConfigured(config, provider),
        })),
      });
    },
  });

  registerOAuthFamily(app, false);
  registerOAuthFamily(app, true);
}
