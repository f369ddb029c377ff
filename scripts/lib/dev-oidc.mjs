// The local OpenID Connect provider (docs/decisions/client.md, "Client: app shell, OpenID Connect sign-in, journeys between people"): `oidc-provider` (a certified implementation) with a
// login page and a few development users. Access tokens are JWTs (RFC 9068) for the resource
// `urn:credential-vault`, audience IDP_AUDIENCE, signed ES256 with the development key whose JWKS
// the worker trusts (DECISIONS D1), so tokens from here and from `npm run token` verify alike.
import Provider from "oidc-provider";
import { createServer } from "node:http";
import { randomBytes, timingSafeEqual } from "node:crypto";
import { DEV_AUDIENCE, ensureKey } from "./dev-identity.mjs";

import { DEV_CLI_CLIENT_ID, DEV_CLIENT_ID, DEV_PASSWORD, DEV_USERS } from "./dev-users.mjs";

export { DEV_CLI_CLIENT_ID, DEV_CLIENT_ID, DEV_PASSWORD, DEV_USERS };
export const RESOURCE = "urn:credential-vault";

const esc = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title, body) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · Development identity provider</title>
<style>body{font-family:system-ui,sans-serif;max-width:30rem;margin:3rem auto;padding:0 1rem;color:#111827}label{display:block;margin-top:.6rem;font-weight:600}
input{width:100%;box-sizing:border-box;padding:.4rem;font:inherit}button{margin-top:.8rem;font:inherit;padding:.35rem .8rem}.error{color:#b91c1c}code{background:#f3f4f6}</style>
</head><body><main>${body}</main></body></html>`;
}

function readForm(req) {
  return new Promise((resolve, reject) => {
    let data = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => {
      data += chunk;
      if (data.length > 10_000) reject(new Error("form too large"));
    });
    req.on("end", () => resolve(Object.fromEntries(new URLSearchParams(data))));
    req.on("error", reject);
  });
}

function sameSecret(a, b) {
  const x = Buffer.from(String(a));
  const y = Buffer.from(String(b));
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A grant of everything the apps ask for (first-party clients: no consent screen); its id. */
async function firstPartyGrant(provider, clientId, accountId) {
  const grant = new provider.Grant({ clientId, accountId });
  grant.addOIDCScope("openid email vault");
  grant.addResourceScope(RESOURCE, "vault");
  return grant.save();
}

/**
 * Starts the provider on 127.0.0.1:`port`. `redirectUris` are the worker's callback URLs.
 * `allowRegistration` (tests only) opens `POST /dev/users` {sub, email}, so each test can sign in
 * as a fresh user through the same login page.
 */
export async function startDevOidc({
  port,
  issuer = `http://localhost:${port}`,
  redirectUris,
  audience = DEV_AUDIENCE,
  allowRegistration = false,
  quiet = false,
}) {
  const key = await ensureKey();
  const users = new Map(DEV_USERS.map((u) => [u.email, u]));
  const bySub = () => new Map([...users.values()].map((u) => [u.sub, u]));
  // Tests only (with registration): how long ago the sign-ins it issues happened, so a journey can
  // be "ten minutes after signing in" without waiting ten minutes.
  let authAgeSeconds = 0;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: DEV_CLIENT_ID,
        // A public client: PKCE (RFC 7636) binds the code to the worker's sign-in attempt.
        token_endpoint_auth_method: "none",
        redirect_uris: redirectUris,
        grant_types: ["authorization_code"],
        response_types: ["code"],
        id_token_signed_response_alg: "ES256",
      },
      {
        client_id: DEV_CLI_CLIENT_ID,
        // A native app (RFC 8252 section 7.3): the loopback redirect's port is the one the command
        // line listens on for this sign-in, so any port matches; PKCE is required of every client.
        application_type: "native",
        token_endpoint_auth_method: "none",
        redirect_uris: ["http://127.0.0.1/callback"],
        grant_types: [
          "authorization_code",
          "refresh_token",
          "urn:ietf:params:oauth:grant-type:device_code",
        ],
        response_types: ["code"],
        id_token_signed_response_alg: "ES256",
      },
    ],
    // The command line stays signed in past the access token's hour; the web app signs in again.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    jwks: { keys: [key] },
    pkce: { required: () => true },
    scopes: ["openid", "email", "vault"],
    claims: { openid: ["sub"], email: ["email", "email_verified"] },
    async findAccount(_ctx, sub) {
      const user = bySub().get(sub);
      if (!user) return undefined;
      return {
        accountId: sub,
        claims: async () => ({ sub, email: user.email, email_verified: true }),
      };
    },
    features: {
      devInteractions: { enabled: false },
      // RFC 8628 for a machine without a browser: the provider's own code entry and confirm pages,
      // then this provider's login page as for any sign-in.
      deviceFlow: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => RESOURCE,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({
          scope: "vault",
          audience,
          accessTokenFormat: "jwt",
          accessTokenTTL: 3600,
          jwt: { sign: { alg: "ES256" } },
        }),
      },
    },
    // The claims the worker reads (DECISIONS D1): email, auth_time (step-up, D3) and roles.
    async extraTokenClaims(ctx, token) {
      const user = bySub().get(token.accountId);
      const authTime = ctx?.oidc?.entities?.AuthorizationCode?.authTime;
      return {
        email: user?.email,
        roles: user?.roles ?? [],
        auth_time: (authTime ?? Math.floor(Date.now() / 1000)) - authAgeSeconds,
      };
    },
    // First-party client: no consent screen; the grant covers what the app asks for.
    async loadExistingGrant(ctx) {
      const grantId =
        ctx.oidc.result?.consent?.grantId || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
      if (grantId) {
        const found = await ctx.oidc.provider.Grant.find(grantId);
        if (found) return found;
      }
      const made = await firstPartyGrant(
        ctx.oidc.provider,
        ctx.oidc.client.clientId,
        ctx.oidc.session.accountId,
      );
      return ctx.oidc.provider.Grant.find(made);
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: [randomBytes(32).toString("base64url")] },
    ttl: {
      AccessToken: 3600,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 600,
      Session: 8 * 3600,
      Grant: 8 * 3600,
    },
    renderError(ctx, out) {
      ctx.type = "html";
      ctx.body = page(
        "Error",
        `<h1>Sign-in error</h1><p class="error">${esc(out.error)}: ${esc(out.error_description ?? "")}</p>`,
      );
    },
  });
  provider.on("server_error", (_ctx, err) => console.error(`dev OpenID provider: ${err.message}`));
  const handle = provider.callback();

  function loginPage(uid, error = "", email = "") {
    const list = DEV_USERS.map(
      (u) =>
        `<li><code>${esc(u.email)}</code>${u.roles.length ? ` (${esc(u.roles.join(", "))})` : ""}</li>`,
    ).join("");
    return page(
      "Sign in",
      `<h1>Sign in</h1>
<p>Development identity provider. Users: </p><ul>${list}</ul><p>Password for each: <code>${esc(DEV_PASSWORD)}</code></p>
<form method="post" action="/interaction/${esc(uid)}/login" autocomplete="off">
<label for="email">Email</label><input id="email" name="email" type="email" required value="${esc(email)}" autofocus>
<label for="password">Password</label><input id="password" name="password" type="password" required>
<button type="submit">Sign in</button>
<p class="error" role="alert">${esc(error)}</p>
</form>`,
    );
  }

  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", issuer);
      const send = (status, html) => {
        res.writeHead(status, {
          "content-type": "text/html; charset=utf-8",
          "cache-control": "no-store",
          "x-frame-options": "DENY",
        });
        res.end(html);
      };
      const login = /^\/interaction\/([\w-]+)\/login$/.exec(url.pathname);
      if (/^\/interaction\/[\w-]+$/.test(url.pathname) && req.method === "GET") {
        const details = await provider.interactionDetails(req, res);
        if (details.prompt.name !== "login") {
          // Consent is granted by loadExistingGrant; a native client (the command line) is asked
          // for it whatever the grant holds (oidc-provider's native_client_prompt), so the answer
          // names the grant as given.
          const grantId =
            details.grantId ??
            (await firstPartyGrant(provider, details.params.client_id, details.session.accountId));
          return await provider.interactionFinished(
            req,
            res,
            { consent: { grantId } },
            { mergeWithLastSubmission: true },
          );
        }
        return send(200, loginPage(details.uid));
      }
      if (login && req.method === "POST") {
        const details = await provider.interactionDetails(req, res);
        const form = await readForm(req);
        const user = users.get(
          String(form.email ?? "")
            .trim()
            .toLowerCase(),
        );
        if (!user || !sameSecret(form.password ?? "", DEV_PASSWORD))
          return send(401, loginPage(details.uid, "Unknown email or wrong password", form.email));
        return await provider.interactionFinished(
          req,
          res,
          { login: { accountId: user.sub } },
          { mergeWithLastSubmission: false },
        );
      }
      if (allowRegistration && url.pathname === "/dev/auth-age" && req.method === "POST") {
        authAgeSeconds = Math.max(0, Number((await readForm(req)).seconds) || 0);
        res.writeHead(204).end();
        return;
      }
      if (allowRegistration && url.pathname === "/dev/users" && req.method === "POST") {
        const form = await readForm(req);
        if (!form.sub || !form.email) return send(400, "sub and email required");
        users.set(form.email.toLowerCase(), {
          sub: form.sub,
          email: form.email.toLowerCase(),
          roles: form.admin === "true" ? ["admin"] : [],
        });
        res.writeHead(204).end();
        return;
      }
      handle(req, res);
    } catch (e) {
      if (!quiet)
        console.error(`dev OpenID provider: ${e instanceof Error ? e.message : String(e)}`);
      if (!res.headersSent) res.writeHead(400, { "content-type": "text/plain" });
      res.end("Sign-in request not valid (expired or already used). Start again from the vault.");
    }
  });
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { issuer, server, stop: () => new Promise((resolve) => server.close(resolve)) };
}
