import { Hono, type MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { loadConfig } from "./env";
import { handleError, handleNotFound } from "./http/errors";
import { d1Sessions } from "./http/d1-sessions";
import { strictTransport } from "./http/hsts";
import { requestLog } from "./http/request-log";
import { requestCost } from "./http/request-cost";
import { serverTiming } from "./http/server-timing";
import type { AppEnv } from "./http/types";
import { registerAuthRoutes } from "./domains/auth";
import { registerMetaRoutes } from "./domains/meta";
import { registerPasswordRoutes } from "./domains/passwords";
import { registerSyncRoutes } from "./domains/sync";
import { registerDeadManSwitchRoutes, signInResetsDeadManSwitch } from "./domains/dead-man-switch";
import { registerEmergencyRoutes } from "./domains/emergency";
import { registerTwoFactorRoutes } from "./domains/two-factor";
import { registerEntryTotpRoutes } from "./domains/entry-totp";
import { registerDeviceRoutes } from "./domains/devices";
import { registerNotificationRoutes } from "./domains/notifications";
import { registerPushRoutes } from "./domains/push";
import { registerSessionShareRoutes } from "./domains/session-shares";
import { registerSharingRoutes } from "./domains/sharing";
import { registerIdentityRoutes } from "./domains/identities";
import { registerAttachmentRoutes } from "./domains/attachments";
import { registerRegistryRoutes } from "./domains/registry";
import { registerResetRoutes } from "./domains/reset";
import { registerIntegrationRoutes } from "./domains/integrations";
import { registerDiscoveryRoutes } from "./domains/discovery";
import { registerShardRoutes } from "./domains/shards";
import { registerBackupRoutes } from "./domains/backup";
import { registerDevMailRoutes } from "./domains/dev-mail";
import { registerBreachRoutes } from "./domains/breach";

import { registerLinkRoutes } from "./domains/links";
import { registerVaultRoutes } from "./domains/vaults";
import { registerAccountKeyRoutes } from "./domains/account-key";
import { registerAppPages } from "./http/app-pages";

const apiVersion: MiddlewareHandler<AppEnv> = async function apiVersion(c, next) {
  await next();
  try {
    c.res.headers.set("API-Version", "1");
  } catch {
    c.res = new Response(c.res.body, c.res);
    c.res.headers.set("API-Version", "1");
  }
};

const config: MiddlewareHandler<AppEnv> = async function config(c, next) {
  c.set("config", loadConfig(c.env));
  await next();
};

/**
/**
 * Middleware order: HSTS (outermost, so errors and a configuration that fails closed carry it), the
 * request id and its log line (so every answer carries X-Request-Id), version header (so errors
 * carry it too), configuration (fails closed), CORS, Server-Timing (when configured); then each
 * route's own chain (see http/route.ts).
 */
export function buildApp(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", strictTransport());
  app.use("*", requestLog());
  app.use("*", apiVersion);
  app.use("*", config);
  app.use(
    "/api/*",
    cors({
      origin: (origin, c) => (c.get("config").corsOrigins.includes(origin) ? origin : null),
      credentials: true,
      allowMethods: ["GET", "POST", "PATCH", "PUT", "DELETE", "OPTIONS"],
      allowHeaders: [
        "authorization",
        "content-type",
        "x-csrf-token",
        "idempotency-key",
        "x-device-fingerprint",
        "dpop",
        "x-vault-bookmark",
        "if-none-match",
      ],
      exposeHeaders: [
        "API-Version",
        "Retry-After",
        "WWW-Authenticate",
        "Idempotent-Replayed",
        "Deprecation",
        "DPoP-Nonce",
        "ETag",
        "Server-Timing",
        "X-Request-Cost",
        "x-vault-bookmark",
      ],
      maxAge: 600,
    }),
  );
  // Cost counters before sessions, so they watch every session from its first statement; sessions
  // before Server-Timing, so it times the queries made through them.
  app.use("/api/*", requestCost());
  app.use("/api/*", d1Sessions());
  app.use("/api/*", serverTiming());
  app.use("/api/*", signInResetsDeadManSwitch);
  registerMetaRoutes(app);
  registerAuthRoutes(app);
  registerSyncRoutes(app);
  registerPasswordRoutes(app);
  registerDeadManSwitchRoutes(app);
  registerEmergencyRoutes(app);
  registerTwoFactorRoutes(app);
  registerEntryTotpRoutes(app);
  registerDeviceRoutes(app);
  registerNotificationRoutes(app);
  registerPushRoutes(app);
  registerSharingRoutes(app);
  registerVaultRoutes(app);
  registerAccountKeyRoutes(app);
  registerSessionShareRoutes(app);
  registerIdentityRoutes(app);
  registerAttachmentRoutes(app);
  registerRegistryRoutes(app);
  registerResetRoutes(app);
  registerIntegrationRoutes(app);
  registerDiscoveryRoutes(app);
  registerShardRoutes(app);
  registerBackupRoutes(app);
  registerLinkRoutes(app);
  registerDevMailRoutes(app);
  registerBreachRoutes(app);
  registerAppPages(app);
  app.notFound(handleNotFound);
  app.onError(handleError);
  return app;
}
