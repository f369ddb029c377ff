import type { Hono } from "hono";
import { z } from "zod";
import { dbFor } from "../../db/client";
import { signInState } from "../../db/second-factor";
import { issueCsrfToken } from "../../http/csrf";
import { deleteHostCookie, getHostCookie, setHostCookie } from "../../http/cookies";
import { route } from "../../http/route";
import { accessTokenOf, verifyAccessToken } from "../../http/auth";
import type { AuthUser } from "../../kernel/context";
import { AppError, ErrorCode } from "../../lib/errors";
import type { AppEnv } from "../../http/types";
import {
  beginSignIn,
  CALLBACK_PATH,
  completeSignIn,
  FLOW_COOKIE,
  FLOW_TTL_SECONDS,
  SignInRefused,
} from "./oidc";

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

  route(app, {
    method: "get",
    path: "/api/auth/session",
    summary:
      "Who the auth cookie or Bearer token names (the web app's sign-in reads it: the cookie is HTTP-only); nobody when none is presented",
    tags: ["auth"],
    // Asked by every signed-out visit of the sign-in page: no credential at all is an answer
    // ("nobody"), not a refusal, so a signed-out page logs no failed request. A credential that
    // does not verify is still 401.
    auth: false,
    responses: {
      200: {
        description:
          "The signed-in user (null when no credential was presented); twoFactorRequired while this sign-in still owes its account 2FA code (D20)",
        schema: z.object({
          user: z.object({ id: z.string(), email: z.string().nullable() }).nullable(),
          twoFactorRequired: z.boolean(),
        }),
      },
      401: { description: "A credential was presented and does not verify" },
    },
    handler: async (c) => {
      c.header("Cache-Control", "no-store");
      const token = accessTokenOf(c);
      if (!token) return c.json({ user: null, twoFactorRequired: false });
      let user: AuthUser;
      try {
        user = await verifyAccessToken(c.get("config"), token);
      } catch {
        throw new AppError(ErrorCode.UNAUTHORIZED, "Invalid or expired token");
      }
      const state = await signInState(dbFor(c.env, user.id), user.id, user.signIn);
      return c.json({
        user: { id: user.id, email: user.email ?? null },
        twoFactorRequired: state.required && state.verifiedAt === null,
      });
    },
  });

  route(app, {
    method: "get",
    path: "/api/auth/login",
    summary:
      "Start a browser sign-in: redirect to the OpenID provider (authorization code with PKCE)",
    tags: ["auth"],
    auth: false,
    query: z.object({ next: z.string().max(2000).optional() }),
    responses: {
      302: { description: "To the provider's authorization endpoint" },
      503: { description: "Sign-in not configured or the provider unreachable" },
    },
    handler: async (c, { query }) => {
      const origin = new URL(c.req.url).origin;
      const { location, cookie } = await beginSignIn(c.get("config"), origin, query.next);
      // Lax: the cookie must come back on the provider's top-level redirect to the callback.
      setHostCookie(c, FLOW_COOKIE, cookie, {
        httpOnly: true,
        sameSite: "Lax",
        maxAge: FLOW_TTL_SECONDS,
      });
      c.header("Cache-Control", "no-store");
      return c.redirect(location, 302);
    },
  });

  route(app, {
    method: "get",
    path: CALLBACK_PATH,
    summary: "Finish a browser sign-in: exchange the code, verify the tokens, set the auth cookie",
    tags: ["auth"],
    auth: false,
    query: z.object({
      code: z.string().max(2000).optional(),
      state: z.string().max(200).optional(),
      error: z.string().max(200).optional(),
    }),
    responses: {
      303: { description: "To the app (signed in), or to the sign-in page with an error message" },
    },
    handler: async (c, { query }) => {
      const config = c.get("config");
      const origin = new URL(c.req.url).origin;
      const flow = getHostCookie(c, FLOW_COOKIE);
      deleteHostCookie(c, FLOW_COOKIE);
      c.header("Cache-Control", "no-store");
      c.header("Referrer-Policy", "no-referrer");
      try {
        const done = await completeSignIn(config, origin, query, flow);
        setHostCookie(c, config.AUTH_COOKIE, done.token, {
          httpOnly: true,
          sameSite: "Strict",
          maxAge: done.expiresIn,
        });
        return c.redirect(`/?${new URLSearchParams({ next: done.next })}`, 303);
      } catch (e) {
        if (!(e instanceof SignInRefused)) throw e;
        return c.redirect(`/?${new URLSearchParams({ error: e.message })}`, 303);
      }
    },
  });

  route(app, {
    method: "post",
    path: "/api/auth/logout",
    summary: "Sign out of this browser: clears the HTTP-only auth cookie",
    tags: ["auth"],
    // Clearing a cookie needs no proof of identity: a forged request could only sign someone out.
    auth: false,
    csrf: false,
    responses: { 204: { description: "Cookie cleared" } },
    handler: (c) => {
      deleteHostCookie(c, c.get("config").AUTH_COOKIE);
      return c.body(null, 204);
    },
  });
}
