// What a production deployment needs besides wrangler.toml: the settings that live as secrets
// (generated here, or the operator's), and a reader for the effective [env.production] config.
// Shared by scripts/check-production.mjs (npm test) and scripts/deploy-setup.mjs, so the list the
// check proves complete is the list the first deploy stores.
import { randomBytes } from "node:crypto";
import { vapidKeys } from "./vapid.mjs";
import { fileURLToPath } from "node:url";

export const root = fileURLToPath(new URL("../..", import.meta.url));
export const ENV = "production";

/**
 * Secrets the setup generates once and never replaces: a new data key would leave every sealed
 * value unreadable, a new CSRF secret signs every session out, new VAPID keys orphan every
 * push subscription. Values are base64 as src/env.ts expects (VAPID: RFC 8292, base64url).
 */
export function generateSecrets() {
  const vapid = vapidKeys();
  return {
    CSRF_SECRET: randomBytes(32).toString("base64url"),
    DATA_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    VAPID_PUBLIC_KEY: vapid.publicKey,
    VAPID_PRIVATE_KEY: vapid.privateKey,
  };
}
export const GENERATED = Object.keys(generateSecrets());

/**
 * The operator's settings, stored as secrets so the repository holds no one's domain or key.
 * Each inner list is alternatives: one of them is enough. An example value beside each lets the
 * check prove that these, with [env.production.vars] and the generated secrets, satisfy src/env.ts.
 */
export const OPERATOR_REQUIRED = [
  {
    names: ["IDP_ISSUER"],
    example: "https://idp.example.org",
    about: "the OpenID provider's issuer",
  },
  {
    names: ["IDP_AUDIENCE"],
    example: "credential-vault",
    about: "the audience the provider's tokens carry",
  },
  {
    names: ["IDP_JWKS_URL", "IDP_JWKS"],
    example: "https://idp.example.org/jwks",
    about: "the provider's signing keys (URL or JSON)",
  },
  {
    names: ["APP_ORIGIN"],
    example: "https://vault.example.org",
    about: "the web app's origin, for links in mail",
  },
  {
    names: ["MAIL_API_URL"],
    example: "https://mail.example.org/send",
    about: "the HTTP mail service",
  },
  { names: ["MAIL_API_KEY"], example: "mail-api-key", about: "its key" },
  { names: ["MAIL_FROM"], example: "vault@example.org", about: "the sender address" },
];

/** Stored when given, skipped when not (browser sign-in by OIDC, Web Push contact, extra origins). */
export const OPERATOR_OPTIONAL = [
  "VAPID_SUBJECT",
  "OIDC_CLIENT_ID",
  "OIDC_CLIENT_SECRET",
  "OIDC_DISCOVERY_URL",
  "CORS_ORIGINS",
  "OAUTH_REDIRECT_BASE",
];

/** RFC 8292 section 2.1 asks for a contact; without one given, the sender address is it. */
export function vapidSubjectFrom(mailFrom) {
  const address = /<([^>]+)>/.exec(mailFrom)?.[1] ?? mailFrom.trim();
  return `mailto:${address}`;
}

/**
 * The effective configuration of one environment as wrangler itself resolves it (inheritance
 * included), with the warnings it prints captured instead of shown.
 */
export async function readWranglerConfig(configPath, env) {
  const { unstable_readConfig } = await import("wrangler");
  const warnings = [];
  const saved = { warn: console.warn, log: console.log };
  console.warn = (...a) => warnings.push(a.join(" "));
  console.log = (...a) => warnings.push(a.join(" "));
  try {
    const config = unstable_readConfig({ config: configPath, env }, { hideWarnings: false });
    return { config, warnings: warnings.filter((w) => /WARNING|not inherited/.test(w)) };
  } finally {
    Object.assign(console, saved);
  }
}

/** Distinct resources of a resolved config: what `deploy:setup` creates when missing. */
export function resourcesOf(config) {
  const unique = (xs) => [...new Set(xs)];
  return {
    databases: unique(config.d1_databases.map((d) => d.database_name)),
    buckets: unique(config.r2_buckets.map((b) => b.bucket_name)),
    queues: unique([
      ...(config.queues.producers ?? []).map((q) => q.queue),
      ...(config.queues.consumers ?? []).map((q) => q.queue),
    ]),
  };
}
