import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { exportJWK, generateKeyPair } from "jose";
import { randomBytes } from "node:crypto";
import { vapidKeys } from "./scripts/lib/vapid.mjs";
import { mkdirSync } from "node:fs";
import { configDefaults, defineConfig } from "vitest/config";
import { clientId, clientSecret, PROVIDERS } from "./test/support/mail-provider-server";
import { shardPassFiles } from "./test/support/shard-pass";

// wrangler.toml serves public/ as static assets; the pool refuses a missing directory, and these
// suites do not need the built client (scripts/build-client.mjs), only the directory.
mkdirSync("public", { recursive: true });

// A throwaway identity provider for the test run: the worker trusts its public key; the tests
// sign tokens with the private one, as the real provider would.
const { privateKey } = await generateKeyPair("ES256", { extractable: true });
const { privateKey: rsaKey } = await generateKeyPair("RS256", { extractable: true });
const es = { ...(await exportJWK(privateKey)), kid: "test-es256", alg: "ES256" };
const rs = { ...(await exportJWK(rsaKey)), kid: "test-rs256", alg: "RS256" };
const PREFIX = { mailx: "MAILX", maily: "MAILY", codehost: "CODEHOST", idp: "IDP_OAUTH" } as const;
/** Every OAuth provider pointed at the local authorization and API server (test/support/mail-provider-server.ts). */
const providerBindings = (base: string) =>
  Object.fromEntries(
    PROVIDERS.flatMap((p) => [
      [`${PREFIX[p]}_AUTH_URL`, `${base}/${p}/authorize`],
      [`${PREFIX[p]}_TOKEN_URL`, `${base}/${p}/token`],
      [`${PREFIX[p]}_REVOKE_URL`, `${base}/${p}/revoke`],
      [`${PREFIX[p]}_API_URL`, `${base}/${p}`],
      [`${PREFIX[p]}_CLIENT_ID`, clientId(p)],
      [`${PREFIX[p]}_CLIENT_SECRET`, clientSecret(p)],
    ]),
  );
// Web Push application server keys (RFC 8292) for the run; the push-service stand-in checks against k.
const vapid = vapidKeys();
const strip = (k: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(k).filter(([n]) => !["d", "p", "q", "dp", "dq", "qi"].includes(n)),
  );

// Scale (docs/decisions/scale.md, "Scale: shards, a directory, many databases"): VAULT_SHARDS=3 (scripts/test.sh's second pass, `npm run test:shards`) runs the suite on
// three shard databases and a directory of its own; the default is wrangler.toml's one database.
const SHARDS = Number(process.env.VAULT_SHARDS ?? "1");
const shardDatabases: Record<string, string> =
  SHARDS > 1
    ? {
        DB: "vault-directory",
        DIRECTORY: "vault-directory",
        ...Object.fromEntries(
          Array.from({ length: SHARDS }, (_, i) => [`DB_${i}`, `vault-shard-${i}`]),
        ),
      }
    : {};

// scripts/test.sh's three-shard pass sets VAULT_SHARD_PASS=placement: only the files whose code
// reaches the directory or every shard run again there (test/support/shard-pass.ts says which and
// why). Without it, VAULT_SHARDS=3 runs whatever it is given, e.g. one directory being changed.
const PLACEMENT =
  SHARDS > 1 && process.env.VAULT_SHARD_PASS === "placement"
    ? shardPassFiles(process.cwd())
    : undefined;

/** Files whose work outlives their tests, and the backup drill, which wipes the deployment: see `projects` below. */
const OWN_RUNTIME_DIRS = ["test/reset/", "test/session-shares/", "test/backup/"];
const OWN_RUNTIME = OWN_RUNTIME_DIRS.map((d) => `${d}**/*.test.ts`);

export default defineConfig({
  plugins: [
    cloudflareTest(async ({ inject }) => ({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        d1Databases: shardDatabases,
        bindings: {
          IDP_JWKS: JSON.stringify({ keys: [strip(es), strip(rs)] }),
          IDP_ISSUER: "https://idp.test",
          IDP_AUDIENCE: "credential-vault-test",
          CSRF_SECRET: randomBytes(32).toString("base64url"),
          DATA_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
          APP_ORIGIN: "https://app.test",
          CORS_ORIGINS: "chrome-extension://abcdefghijklmnop",
          MAX_PASSWORDS_PER_USER: "25",
          // Small, so the shared-vault limits are reached within the rate limits (test/vaults).
          MAX_VAULT_MEMBERS: "4",
          MAX_VAULTS_PER_USER: "3",
          // Named here because wrangler also reads a developer's .dev.vars (npm start turns it on):
          // the suite's answers must not depend on whether that file exists.
          SERVER_TIMING: "false",
          // Every JSON success answer is checked against its route's declared schema (the one the
          // client's wire types come from): a handler drifting from it fails the file that calls it.
          CHECK_RESPONSE_SCHEMAS: "true",
          // 1 MiB: five entries of 200,000-character ciphertexts fit, a sixth does not (test/passwords/quota.test.ts).
          MAX_VAULT_BYTES_PER_USER: "1048576",
          // Four 4,000-byte notifications or three identities with 5,000-character notes fit, not more
          // (test/notifications/quota.test.ts, test/identities/quota.test.ts).
          MAX_NOTIFICATION_BYTES_PER_USER: "20000",
          MAX_IDENTITY_BYTES_PER_USER: "20000",
          OUTBOUND_ALLOW_PRIVATE: "true",
          TEST_IDP_KEYS: JSON.stringify({ es, rs }),
          TEST_MIGRATIONS: await readD1Migrations("./migrations"),
          TEST_SITE_URL: inject("loginSiteUrl"),
          ALIAS_PROVIDER_A_URL: `${inject("aliasProviderUrl")}/a`,
          ALIAS_PROVIDER_B_URL: `${inject("aliasProviderUrl")}/b`,
          ALIAS_PROVIDER_B_DOMAIN: "anonaddy.test",
          TEST_ALIAS_PROVIDER_URL: inject("aliasProviderUrl"),
          TEST_RESET_SITE: inject("resetSiteOrigin"),
          TEST_RESET_IMAP: JSON.stringify(inject("resetImap")),
          IMAP_ALLOWED_PORTS: `143,993,${inject("resetImap").port},${inject("discoveryImap").port}`,
          TEST_DISCOVERY_IMAP: JSON.stringify(inject("discoveryImap")),
          TEST_MAIL_PROVIDER_URL: inject("mailProviderUrl"),
          OAUTH_REDIRECT_BASE: "https://vault.test",
          DOH_URL: `${inject("mailProviderUrl")}/dns-query`,
          ...providerBindings(inject("mailProviderUrl")),
          RESET_EMAIL_WAIT_SECONDS: "6",
          // Above the reset rate limit (5 per 5 minutes), so the rate-limit tests never meet the cap.
          MAX_LIVE_BROWSERS_PER_USER: "6",
          // The suite's files share one local D1, so the deployment-wide cap is set out of the way.
          MAX_LIVE_BROWSERS: "1000",
          // A shard move waits out the isolates' map caches twice; a short cache keeps the move tests short.
          SHARD_CACHE_MS: "300",
          // `node bench/shards.mjs --move` (test/db/shard-move-bench.test.ts): the owner's writes
          // during a long move must not meet the per-user rate limits.
          ...(process.env.SHARD_BENCH
            ? { TEST_SHARD_BENCH: "1", RATE_LIMIT_MULTIPLIER: "1000" }
            : {}),
          VAPID_PUBLIC_KEY: vapid.publicKey,
          VAPID_PRIVATE_KEY: vapid.privateKey,
          VAPID_SUBJECT: "mailto:ops@vault.test",
          TEST_PUSH_SERVICE_URL: inject("pushServiceUrl"),
          PWNED_RANGE_URL: `${inject("pwnedRangeUrl")}/range/`,
          TEST_PWNED_RANGE_URL: inject("pwnedRangeUrl"),
        },
      },
    })),
  ],
  test: {
    // The web client's suites run in Node against a real browser: vitest.browser.config.mts.
    // Moves need two shards, so they run in the sharded pass only; the move bench only under its bench.
    exclude: [
      ...configDefaults.exclude,
      "client/**",
      // Node-side tooling suites: vitest.node.config.mts.
      "test/cli/**",
      "test/deploy/**",
      "test/tooling/**",
      "test/**/*.node.test.ts",
      ...(SHARDS > 1 ? [] : ["test/db/shard-move.test.ts"]),
      ...(process.env.SHARD_BENCH ? [] : ["test/db/shard-move-bench.test.ts"]),
    ],
    setupFiles: ["./test/support/setup.ts"],
    globalSetup: [
      "./test/support/mail-api-server.ts",
      "./test/support/login-site.ts",
      "./test/support/alias-provider-setup.ts",
      "./test/support/reset-site.ts",
      "./test/support/discovery-mailbox.ts",
      "./test/support/mail-provider-server.ts",
      "./test/support/push-service.ts",
      "./test/support/misbehaving-imap.ts",
      "./test/support/pwned-range-setup.ts",
    ],
    testTimeout: 30_000,
    // Most files share one runtime (a fresh one cost about 5.6 s a file); the reset and
    // session-share directories keep one per file, since their queued tasks and live browsers
    // outlive their tests. Whole directories, so a new file there is safe by default.
    // docs/decisions/platform.md, "Platform: the test run, one workerd for most worker files".
    projects: [
      {
        extends: true,
        test: {
          name: "shared",
          isolate: false,
          exclude: OWN_RUNTIME,
          ...(PLACEMENT ? { include: PLACEMENT } : {}),
        },
      },
      {
        extends: true,
        test: {
          name: "own-runtime",
          isolate: true,
          include: PLACEMENT
            ? PLACEMENT.filter((f) => OWN_RUNTIME_DIRS.some((d) => f.startsWith(d)))
            : OWN_RUNTIME,
        },
      },
    ],
  },
});
