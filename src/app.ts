import { Hono, type MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { loadConfig } from "./env";
import { handleError, handleNotFound } from "./http/errors";
import type { AppEnv } from "./http/types";
import { registerAuthRoutes } from "./domains/auth/routes";
import { registerMetaRoutes } from "./domains/meta/routes";
import { registerPasswordRoutes } from "./domains/passwords/routes";
import { registerSyncRoutes } from "./domains/sync/routes";
import { registerDeadManSwitchRoutes, signInResetsDeadManSwitch } from "./domains/dead-man-switch/routes";
import { registerEmergencyRoutes } from "./domains/emergency/routes";
import { registerTwoFactorRoutes } from "./domains/twofa/routes";
import { registerEntryTotpRoutes } from "./domains/entry-totp/routes";
import { registerDeviceRoutes } from "./domains/devices/routes";
import { registerNotificationRoutes } from "./domains/notifications/routes";
import { registerSessionShareRoutes } from "./domains/session-shares/routes";
import { registerSharingRoutes } from "./domains/sharing/routes";
import { registerIdentityRoutes } from "./domains/identities/routes";
import { registerAttachmentRoutes } from "./domains/attachments/routes";
import { registerRegistryRoutes } from "./domains/registry/routes";
import { registerResetRoutes } from "./domains/reset/routes";
import { registerIntegrationRoutes } from "./domains/integrations/routes";
import { registerDiscoveryRoutes } from "./domains/discovery/routes";
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
 * Middleware order: version header (outermost, so errors carry it too), configuration (fails
 * closed), CORS; then each route's own chain (see http/route.ts).
 */
export function buildApp(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", apiVersion);
  app.use("*", config);
  app.use(
    "/api/*",
    cors({
      origin: (origin, c) => (c.get("config").corsOrigins.includes(origin) ? origin : null),
      credentials: true,
      allowMethods: ["GET", "POST", "PATCH", "PUT", "DELETE", "OPTIONS"],
      allowHeaders: ["authorization", "content-type", "x-csrf-token", "idempotency-key", "x-device-fingerprint"],
      exposeHeaders: ["API-Version", "Retry-After", "WWW-Authenticate", "Idempotent-Replayed", "Deprecation"],
      maxAge: 600,
    }),
  );
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
  registerSharingRoutes(app);
  registerSessionShareRoutes(app);
  registerIdentityRoutes(app);
  registerAttachmentRoutes(app);
  registerRegistryRoutes(app);
  registerResetRoutes(app);
  registerIntegrationRoutes(app);
  registerDiscoveryRoutes(app);
  registerAppPages(app);
  app.notFound(handleNotFound);
  app.onError(handleError);
  return app;
}
