import { z } from "zod";
import { AppError, ErrorCode } from "./lib/errors";
import { logJson } from "./lib/log";

/** Bindings declared in wrangler.toml (DECISIONS D12). */
export type Bindings = {
  DB: D1Database;
  ATTACHMENTS: R2Bucket;
  RATE_LIMITER: DurableObjectNamespace<import("../durable-objects/rate-limiter").RateLimiter>;
  IDEMPOTENCY: DurableObjectNamespace<import("../durable-objects/idempotency").IdempotencyStore>;
  SESSION_SHARES: import("../durable-objects/session-share/room").SessionShareRoomNamespace;
  /** The reset consumer's message (src/domains/reset/consumer.ts, ResetMessage). */
  RESET_QUEUE: Queue<{ taskId: string; userId: string }>;
  /** Mail the HTTP transport could not send at once (src/domains/notifications/mail-queue.ts, MailMessage; D19). */
  MAIL_QUEUE?: Queue<{ mail: { to: string; subject: string; text: string; kind: string } }>;
  TASK_PROGRESS: DurableObjectNamespace<import("../durable-objects/task-progress").TaskProgress>;
  /** One live-sync hub per user (durable-objects/live-sync-hub.ts). */
  LIVE_SYNC: import("../durable-objects/live-sync-hub").LiveSyncNamespace;
  BROWSER: Fetcher;
  RECOVERY_TIMER: import("../durable-objects/recovery-timer").RecoveryTimerNamespace;
  TOKEN_REFRESHER: DurableObjectNamespace<
    import("../durable-objects/token-refresher").TokenRefresherBase
  >;
  /** Where the scheduled backup writes (src/domains/backup); backups are off without it. */
  BACKUP_BUCKET?: R2Bucket;
  /** The web client's static files (wrangler.toml [assets]). */
  ASSETS?: Fetcher;
} & Record<string, unknown>;

const base64Key32 = z.string().refine((v) => {
  try {
    return atob(v).length === 32;
  } catch {
    return false;
  }
}, "must be base64 of 32 bytes");

const optionalUrl = z.url().optional();

/** Decodes base64url (RFC 4648 section 5, no padding), or null when the text is not that alphabet. */
function base64urlBytes(v: string): string | null {
  if (!/^[A-Za-z0-9_-]+$/.test(v)) return null;
  try {
    return atob(v.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (v.length % 4)) % 4));
  } catch {
    return null;
  }
}

/**
 * Web Push application server keys (RFC 8292 section 3.2): the public key is the uncompressed
 * P-256 point (65 bytes, 0x04 first) the browser is given as applicationServerKey; the private
 * key is the scalar d (32 bytes). All three absent means push is off; any one set needs all three.
 */
const vapidShape = {
  VAPID_PUBLIC_KEY: z
    .string()
    .refine((v) => {
      const bytes = base64urlBytes(v);
      return bytes?.length === 65 && bytes.charCodeAt(0) === 4;
    }, "must be base64url of an uncompressed P-256 point")
    .optional(),
  VAPID_PRIVATE_KEY: z
    .string()
    .refine((v) => base64urlBytes(v)?.length === 32, "must be base64url of 32 bytes")
    .optional(),
  /** RFC 8292 section 2.1: a contact for the push service operator, mailto: or https:. */
  VAPID_SUBJECT: z
    .string()
    .regex(/^(mailto:[^\s@]+@[^\s@]+|https:\/\/\S+)$/, "must be a mailto: or https: URL")
    .optional(),
};

/**
 * Mailbox providers are configuration: endpoints, client ids and scopes per provider. A provider
 * without its URLs and client id is "not configured" and its endpoints answer 503.
 */
const mailConfigShape = {
  OAUTH_REDIRECT_BASE: optionalUrl,
  MAILX_AUTH_URL: optionalUrl,
  MAILX_TOKEN_URL: optionalUrl,
  MAILX_API_URL: optionalUrl,
  /** RFC 7009 revocation endpoint; a disconnect revokes there first when it is set. */
  MAILX_REVOKE_URL: optionalUrl,
  MAILX_CLIENT_ID: z.string().min(1).optional(),
  MAILX_CLIENT_SECRET: z.string().min(1).optional(),
  MAILX_SCOPES: z
    .string()
    .default(
      "https://www.googleapis.com/auth/gmail.readonly https://www.googleapis.com/auth/gmail.modify",
    ),
  MAILY_AUTH_URL: optionalUrl,
  MAILY_TOKEN_URL: optionalUrl,
  MAILY_API_URL: optionalUrl,
  MAILY_REVOKE_URL: optionalUrl,
  MAILY_CLIENT_ID: z.string().min(1).optional(),
  MAILY_CLIENT_SECRET: z.string().min(1).optional(),
  MAILY_SCOPES: z.string().default("offline_access User.Read Mail.ReadWrite"),
  CODEHOST_AUTH_URL: optionalUrl,
  CODEHOST_TOKEN_URL: optionalUrl,
  CODEHOST_API_URL: optionalUrl,
  CODEHOST_REVOKE_URL: optionalUrl,
  CODEHOST_CLIENT_ID: z.string().min(1).optional(),
  CODEHOST_CLIENT_SECRET: z.string().min(1).optional(),
  CODEHOST_SCOPES: z.string().default("read:user user:email"),
  IDP_OAUTH_AUTH_URL: optionalUrl,
  IDP_OAUTH_TOKEN_URL: optionalUrl,
  IDP_OAUTH_API_URL: optionalUrl,
  IDP_OAUTH_REVOKE_URL: optionalUrl,
  IDP_OAUTH_CLIENT_ID: z.string().min(1).optional(),
  IDP_OAUTH_CLIENT_SECRET: z.string().min(1).optional(),
  IDP_OAUTH_SCOPES: z.string().default("openid email offline_access"),
  /** Ports an IMAP host may be reached on; development and tests add their own. */
  IMAP_ALLOWED_PORTS: z
    .string()
    .regex(/^\d+(,\d+)*$/)
    .default("143,993"),
  /** Bound on the literals of one IMAP response together (src/lib/imap/reader.ts). */
  IMAP_MAX_LITERAL_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(25 * 1024 * 1024),
  /** Bound on connecting to an IMAP server and on each wait for its data. */
  IMAP_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(300).default(30),
  /** DNS over HTTPS endpoint used by the outbound guard to resolve user-supplied hostnames. */
  DOH_URL: z.url().default("https://cloudflare-dns.com/dns-query"),
  RESET_EMAIL_WAIT_SECONDS: z.coerce.number().int().min(1).max(3600).default(120),
};

export const ConfigSchema = z
  .object({
    /**
     * DECISIONS D18: wrangler.toml's top-level [vars] say development, [env.production] production.
     * Required: a deployment that forgot to say which it is fails closed rather than getting
     * development's defaults.
     */
    ENVIRONMENT: z.enum(["development", "production"]),
    IDP_JWKS: z.string().min(1).optional(),
    IDP_JWKS_URL: z.url().optional(),
    IDP_ISSUER: z.string().min(1).optional(),
    IDP_AUDIENCE: z.string().min(1).optional(),
    AUTH_COOKIE: z.string().min(1).default("access_token"),
    /** Browser sign-in by OpenID Connect (docs/decisions/client.md, "Client: app shell, OpenID Connect sign-in, journeys between people"): the provider's issuer is IDP_ISSUER. */
    OIDC_CLIENT_ID: z.string().min(1).optional(),
    OIDC_CLIENT_SECRET: z.string().min(1).optional(),
    OIDC_DISCOVERY_URL: z.url().optional(),
    OIDC_SCOPES: z.string().min(1).default("openid email"),
    /**
     * How a token without `email_verified` is read. Production takes such an email as unverified
     * unless the deployment says its provider omits the claim ("absent-is-verified"); development
     * defaults to the latter. Any other value fails closed.
     */
    IDP_EMAIL_VERIFIED_CLAIM: z.enum(["required", "absent-is-verified"]).optional(),
    CSRF_SECRET: z.string().min(16, "must be at least 16 characters"),
    DATA_ENCRYPTION_KEY: base64Key32,
    /**
     * D10 rotation: earlier data keys, comma-separated base64, still accepted for opening until the
     * re-seal pass has moved every sealed value to DATA_ENCRYPTION_KEY. Each is known by its key id.
     */
    DATA_ENCRYPTION_KEYS_PREVIOUS: z
      .string()
      .optional()
      .refine(
        (v) => !v || v.split(",").every((k) => base64Key32.safeParse(k.trim()).success),
        "must be comma-separated base64 of 32 bytes each",
      ),
    MAX_PASSWORDS_PER_USER: z.coerce.number().int().positive().default(10_000),
    /** Bytes of one user's notifications (title, body, metadata and the other free-text fields). */
    MAX_NOTIFICATION_BYTES_PER_USER: z.coerce
      .number()
      .int()
      .positive()
      .default(1024 * 1024),
    /** Bytes of one user's identities (every text field, the sealed alias key included). */
    MAX_IDENTITY_BYTES_PER_USER: z.coerce
      .number()
      .int()
      .positive()
      .default(1024 * 1024),
    /** Bytes of ciphertext (encrypted_data + wrapped_item_key) one user's live entries may hold. */
    MAX_VAULT_BYTES_PER_USER: z.coerce
      .number()
      .int()
      .positive()
      .default(100 * 1024 * 1024),
    APP_ORIGIN: z.string().optional(),
    CORS_ORIGINS: z.string().optional(),
    OUTBOUND_ALLOW_PRIVATE: z.string().optional(),
    RATE_LIMIT_MULTIPLIER: z.coerce.number().min(1).default(1),
    ...mailConfigShape,
    MAIL_TRANSPORT: z.enum(["outbox", "http"]).default("outbox"),
    MAIL_API_URL: z.url().optional(),
    MAIL_API_KEY: z.string().min(1).optional(),
    MAIL_FROM: z.string().min(3).optional(),
    /** Bound on one call to the mail API; a provider that never answers is a failed send, retried (D19). */
    MAIL_API_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(120).default(10),
    /** First delay of a queued mail's retries; each further retry doubles it (D19). */
    MAIL_RETRY_BASE_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
    /** The issuer shown by authenticator apps for account 2FA (otpauth URI). */
    TOTP_ISSUER: z.string().min(1).max(100).default("Credential Vault"),
    /** Browser Rendering price per browser hour, in cents, for estimatedCostCents. */
    SESSION_BROWSER_CENTS_PER_HOUR: z.coerce.number().min(0).default(9),
    /**
     * The Pwned Passwords range API; the prefix is appended (k-anonymity: only five hex characters
     * of a password's SHA-1 ever leave, see src/domains/breach).
     */
    PWNED_RANGE_URL: z.url().default("https://api.pwnedpasswords.com/range/"),
    ALIAS_PROVIDER_A_URL: z.url().default("https://app.simplelogin.io"),
    ALIAS_PROVIDER_B_URL: z.url().default("https://app.addy.io"),
    ALIAS_PROVIDER_B_DOMAIN: z.string().min(1).default("anonaddy.me"),
    /** Live browsers (resets and session shares together) one user may hold at once. */
    MAX_LIVE_BROWSERS_PER_USER: z.coerce.number().int().min(1).default(2),
    /** Live browsers the whole deployment runs at once (the Browser Rendering account's concurrency). */
    MAX_LIVE_BROWSERS: z.coerce.number().int().min(1).default(10),
    /** Live-sync connections (WebSockets to the user's hub) one user may hold open at once. */
    LIVE_SYNC_MAX_CONNECTIONS: z.coerce.number().int().min(1).default(20),
    ATTACHMENT_QUOTA_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .default(100 * 1024 * 1024),
    /** Members (with open invitations) one shared vault may have. */
    MAX_VAULT_MEMBERS: z.coerce.number().int().min(1).max(1000).default(50),
    /** Shared vaults one person may belong to. */
    MAX_VAULTS_PER_USER: z.coerce.number().int().min(1).max(1000).default(20),
    /** Secure links one user may hold open at once (not revoked, content not yet purged). */
    SECURE_LINK_MAX_OPEN: z.coerce.number().int().positive().default(50),
    /** Bytes of ciphertext one user's open secure links may hold in R2 together. */
    SECURE_LINK_QUOTA_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .default(100 * 1024 * 1024),
    /** "true" adds the Server-Timing header to API responses; off unless configured (npm start turns it on). */
    SERVER_TIMING: z.enum(["true", "false"]).default("false"),
    /**
     * "true" checks each JSON success answer against the schema its route declares (http/response-check.ts):
     * the worker suite turns it on; off in production.
     */
    CHECK_RESPONSE_SCHEMAS: z.enum(["true", "false"]).default("false"),
    /**
     * "true" answers each API request's D1 statements, rows read and written, Durable Object
     * calls, R2 operations, queue messages and fetches in X-Request-Cost (http/request-cost.ts), for
     * the cost bench and its regression test; off unless set, refused in production.
     */
    COST_COUNTERS: z.enum(["true", "false"]).default("false"),
    /** Complete backups older than this many days are deleted (the newest is always kept). */
    BACKUP_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
    /** Days a deleted entry stays in the trash (restorable) before the daily purge removes it. */
    TRASH_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
    /** A new backup starts when the newest began this many hours ago. */
    BACKUP_INTERVAL_HOURS: z.coerce
      .number()
      .int()
      .min(1)
      .max(24 * 31)
      .default(24),
    ...vapidShape,
  })
  .refine((c) => c.IDP_JWKS || c.IDP_JWKS_URL, {
    message: "one of IDP_JWKS or IDP_JWKS_URL is required",
    path: ["IDP_JWKS"],
  })
  .refine((c) => c.MAIL_TRANSPORT !== "http" || (c.MAIL_API_URL && c.MAIL_API_KEY && c.MAIL_FROM), {
    message: "MAIL_TRANSPORT=http needs MAIL_API_URL, MAIL_API_KEY and MAIL_FROM",
    path: ["MAIL_API_KEY"],
  })
  .superRefine((c, ctx) => {
    if (c.ENVIRONMENT !== "production") return;
    // Production has no development defaults (D18): each of these missing is named in the log.
    const missing = (name: string) =>
      ctx.addIssue({ code: "custom", path: [name], message: "required in production" });
    if (!c.IDP_ISSUER) missing("IDP_ISSUER");
    if (!c.IDP_AUDIENCE) missing("IDP_AUDIENCE");
    // The outbox is a development inbox, not a mail service: production must send (D19).
    if (c.MAIL_TRANSPORT !== "http") missing("MAIL_TRANSPORT");
    // Counts are a bench's instrument: a deployment never tells callers what its requests cost.
    if (c.COST_COUNTERS === "true") {
      ctx.addIssue({
        code: "custom",
        path: ["COST_COUNTERS"],
        message: "is a bench switch, not for production",
      });
    }
    if (c.OUTBOUND_ALLOW_PRIVATE === "true") {
      ctx.addIssue({
        code: "custom",
        path: ["OUTBOUND_ALLOW_PRIVATE"],
        message: "must not open private addresses in production",
      });
    }
  })
  .refine(
    (c) =>
      [c.VAPID_PUBLIC_KEY, c.VAPID_PRIVATE_KEY, c.VAPID_SUBJECT].every((v) => v === undefined) ||
      (c.VAPID_PUBLIC_KEY && c.VAPID_PRIVATE_KEY && c.VAPID_SUBJECT),
    {
      message:
        "Web Push needs all of VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY and VAPID_SUBJECT, or none",
      path: ["VAPID_PRIVATE_KEY"],
    },
  );

/**
 * An origin on this machine: http(s) on localhost, 127.0.0.0/8 or [::1]. The URL parser has
 * already written any IPv4 form (127.1, 0x7f.0.0.1) as four decimal octets.
 */
export function isLoopbackOrigin(origin: string | undefined): boolean {
  if (!origin || !URL.canParse(origin)) return false;
  const { protocol, hostname } = new URL(origin);
  if (protocol !== "http:" && protocol !== "https:") return false;
  return (
    hostname === "localhost" ||
    hostname === "[::1]" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}

/**
 * Whether /dev/mail (src/domains/dev-mail) shows the outbox: development, mail kept in the outbox,
 * and the app served from this machine. The page holds every user's mail and its tokens without a
 * sign-in, so a deploy that took the top level's development settings (no APP_ORIGIN, or a real
 * one) must not serve it. Read by scripts/check-production.mjs as well.
 */
export function servesDevMail(vars: {
  ENVIRONMENT?: unknown;
  MAIL_TRANSPORT?: unknown;
  APP_ORIGIN?: unknown;
}): boolean {
  return (
    vars.ENVIRONMENT === "development" &&
    (vars.MAIL_TRANSPORT ?? "outbox") === "outbox" &&
    isLoopbackOrigin(typeof vars.APP_ORIGIN === "string" ? vars.APP_ORIGIN : undefined)
  );
}

export type Config = z.infer<typeof ConfigSchema> & {
  corsOrigins: string[];
  allowPrivateOutbound: boolean;
  serverTiming: boolean;
  /** COST_COUNTERS: each API request answers what it cost in X-Request-Cost. */
  costCounters: boolean;
  /** DATA_ENCRYPTION_KEY, then DATA_ENCRYPTION_KEYS_PREVIOUS: seal with the first, open with any. */
  dataKeys: readonly string[];
  /** A token's `email` counts only with `email_verified: true` (false: an absent claim also counts). */
  emailVerifiedRequired: boolean;
  /** Web Push is configured (all three VAPID settings present and valid). */
  push: { publicKey: string; privateKey: string; subject: string } | null;
};

const cache = new WeakMap<object, Config>();

/**
 * Parses configuration once per isolate. A missing or malformed secret fails closed: every
 * request answers 500 and the log names the variable (never its value).
 */
export function loadConfig(env: Bindings): Config {
  const hit = cache.get(env);
  if (hit) return hit;
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const names = [...new Set(parsed.error.issues.map((i) => String(i.path[0] ?? "config")))];
    logJson("error", "configuration invalid or missing", { names });
    throw new AppError(ErrorCode.INTERNAL_ERROR, "Service misconfigured");
  }
  const c = parsed.data;
  const corsOrigins = [c.APP_ORIGIN, ...(c.CORS_ORIGINS ?? "").split(",")]
    .map((o) => o?.trim())
    .filter((o): o is string => !!o);
  const config: Config = {
    ...c,
    corsOrigins,
    allowPrivateOutbound: c.OUTBOUND_ALLOW_PRIVATE === "true",
    serverTiming: c.SERVER_TIMING === "true",
    costCounters: c.COST_COUNTERS === "true",
    emailVerifiedRequired:
      (c.IDP_EMAIL_VERIFIED_CLAIM ??
        (c.ENVIRONMENT === "production" ? "required" : "absent-is-verified")) === "required",
    dataKeys: dataKeysOf(c),
    push:
      c.VAPID_PUBLIC_KEY && c.VAPID_PRIVATE_KEY && c.VAPID_SUBJECT
        ? {
            publicKey: c.VAPID_PUBLIC_KEY,
            privateKey: c.VAPID_PRIVATE_KEY,
            subject: c.VAPID_SUBJECT,
          }
        : null,
  };
  cache.set(env, config);
  return config;
}

function dataKeysOf(c: {
  DATA_ENCRYPTION_KEY: string;
  DATA_ENCRYPTION_KEYS_PREVIOUS?: string;
}): readonly string[] {
  const previous = (c.DATA_ENCRYPTION_KEYS_PREVIOUS ?? "")
    .split(",")
    .map((k) => k.trim())
    .filter((k) => k && k !== c.DATA_ENCRYPTION_KEY);
  return [c.DATA_ENCRYPTION_KEY, ...previous];
}
