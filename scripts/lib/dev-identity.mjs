// Development identity provider (DECISIONS D1): one ES256 key pair made once per checkout, whose
// public JWKS goes into .dev.vars so `wrangler dev` trusts tokens that scripts/token.mjs signs.
import { extensionOrigin } from "./extension-id.mjs";
import { exportJWK, generateKeyPair, SignJWT, importJWK } from "jose";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { isWholeVapidKey, vapidKeys } from "./vapid.mjs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const KEY_FILE = join(ROOT, ".dev", "idp-private.jwk.json");
const VARS_FILE = join(ROOT, ".dev.vars");
/** The local OpenID provider's port and issuer (`npm start` runs it: scripts/lib/dev-oidc.mjs). */
export const DEV_IDP_PORT = Number(process.env.IDP_PORT ?? 8790);
export const DEV_ISSUER = `http://localhost:${DEV_IDP_PORT}`;
/** Before docs/decisions/client.md, "Client: app shell, OpenID Connect sign-in, journeys between people" the development issuer was only a name; such a .dev.vars is moved to the provider. */
const OLD_DEV_ISSUER = "https://idp.dev.local";
export const DEV_AUDIENCE = "credential-vault";

export async function ensureKey() {
  if (existsSync(KEY_FILE)) return JSON.parse(readFileSync(KEY_FILE, "utf8"));
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  const jwk = {
    ...(await exportJWK(privateKey)),
    alg: "ES256",
    kid: `dev-${randomBytes(4).toString("hex")}`,
    use: "sig",
  };
  mkdirSync(dirname(KEY_FILE), { recursive: true });
  // Created only if still missing: two callers at once (the browser suite's server sets each
  // start a provider) both find no file and both generate; the second must take the first's key,
  // or its provider signs ID tokens with a key the worker's IDP_JWKS does not hold.
  try {
    writeFileSync(KEY_FILE, JSON.stringify(jwk), { mode: 0o600, flag: "wx" });
  } catch (e) {
    if (e.code !== "EEXIST") throw e;
    return JSON.parse(readFileSync(KEY_FILE, "utf8"));
  }
  return jwk;
}

export function publicJwks(privateJwk) {
  const { d: _d, ...pub } = privateJwk;
  return { keys: [pub] };
}

function readVars() {
  if (!existsSync(VARS_FILE)) return new Map();
  const map = new Map();
  for (const line of readFileSync(VARS_FILE, "utf8").split("\n")) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line);
    if (m) map.set(m[1], m[2]);
  }
  return map;
}

/** Writes .dev.vars, keeping secrets already there and refreshing the JWKS. */
export async function ensureDevVars() {
  const jwk = await ensureKey();
  const vars = readVars();
  vars.set("IDP_JWKS", `'${JSON.stringify(publicJwks(jwk))}'`);
  if (!vars.has("IDP_ISSUER") || vars.get("IDP_ISSUER") === OLD_DEV_ISSUER)
    vars.set("IDP_ISSUER", DEV_ISSUER);
  if (!vars.has("OIDC_CLIENT_ID")) vars.set("OIDC_CLIENT_ID", "credential-vault-web");
  if (!vars.has("OIDC_SCOPES")) vars.set("OIDC_SCOPES", "'openid email vault'");
  if (!vars.has("IDP_AUDIENCE")) vars.set("IDP_AUDIENCE", DEV_AUDIENCE);
  if (!vars.has("CSRF_SECRET")) vars.set("CSRF_SECRET", randomBytes(32).toString("base64url"));
  if (!vars.has("DATA_ENCRYPTION_KEY"))
    vars.set("DATA_ENCRYPTION_KEY", randomBytes(32).toString("base64"));
  if (!vars.has("APP_ORIGIN")) vars.set("APP_ORIGIN", "http://localhost:8787");
  // The browser extension (extension/, fixed id from its manifest key) calls the API cross-origin.
  if (!vars.has("CORS_ORIGINS")) vars.set("CORS_ORIGINS", extensionOrigin());
  if (!vars.has("SERVER_TIMING")) vars.set("SERVER_TIMING", "true");
  if (!vars.has("OUTBOUND_ALLOW_PRIVATE")) vars.set("OUTBOUND_ALLOW_PRIVATE", "true");
  // Web Push application server keys (RFC 8292), made once per checkout like the secrets above.
  if (
    !vars.has("VAPID_PRIVATE_KEY") ||
    !vars.has("VAPID_PUBLIC_KEY") ||
    !isWholeVapidKey(vars.get("VAPID_PRIVATE_KEY"))
  ) {
    const vapid = vapidKeys();
    vars.set("VAPID_PUBLIC_KEY", vapid.publicKey);
    vars.set("VAPID_PRIVATE_KEY", vapid.privateKey);
  }
  if (!vars.has("VAPID_SUBJECT")) vars.set("VAPID_SUBJECT", "mailto:dev@localhost.test");
  const text = [...vars].map(([k, v]) => `${k}=${v}`).join("\n") + "\n";
  // Other processes read this file while tests start workers beside each other (wrangler and the
  // Workers test pool load it at start): an unchanged file is not touched, and a changed one is
  // replaced in one rename, never seen truncated or half-written.
  if (existsSync(VARS_FILE) && readFileSync(VARS_FILE, "utf8") === text) return;
  const tmp = `${VARS_FILE}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, VARS_FILE);
}

export async function signDevToken({ sub, email, admin = false, authAge = 0, ttl = 3600, issuer }) {
  const jwk = await ensureKey();
  const vars = readVars();
  const key = await importJWK(jwk, "ES256");
  const now = Math.floor(Date.now() / 1000);
  const claims = { auth_time: now - authAge, roles: admin ? ["admin"] : [] };
  if (email) claims.email = email;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "ES256", kid: jwk.kid, typ: "JWT" })
    .setSubject(sub)
    .setIssuer(issuer ?? vars.get("IDP_ISSUER") ?? DEV_ISSUER)
    .setAudience(vars.get("IDP_AUDIENCE") ?? DEV_AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + ttl)
    .sign(key);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await ensureDevVars();
  console.log("development identity ready (.dev/ and .dev.vars)");
}
