import type { Context, Hono } from "hono";
import { dbFor } from "../../db/client";
import { route } from "../../http/route";
import { stepUp } from "../../http/step-up";
import { requestMeta, type AppEnv } from "../../http/types";
import { CodeBody, EnrollBody, EnrollResponse, StatusResponse, SuccessResponse, VerifyFailure, VerifyResponse } from "./schema";
import { TwoFactorService } from "./service";

function service(c: Context<AppEnv>) {
  const config = c.get("config");
  return new TwoFactorService(dbFor(c.env, c.get("user").id), config.dataKeys, config.TOTP_ISSUER);
}

/** Replacing a confirmed second factor weakens the account as much as disabling it does (D3). */
const replaceStepUp = stepUp({ sensitive: true });

export function registerTwoFactorRoutes(app: Hono<AppEnv>) {
  route(app, {
    method: "post",
    path: "/api/2fa/enroll",
    summary: "Start 2FA enrollment: otpauth URI, base32 secret and ten single-use recovery codes (shown once)",
    tags: ["2fa"],
    rateLimit: ["two_factor_enroll"],
    body: EnrollBody,
    responses: { 200: { description: "Enrollment; pending until a code is verified", schema: EnrollResponse } },
    handler: async (c, { body }) => {
      const user = c.get("user");
      const svc = service(c);
      if (await svc.isEnrolled(user.id)) {
        await replaceStepUp(c, async () => {});
        await svc.requireCurrentCode(user.id, body.code, requestMeta(c.req), user.signIn);
      }
      c.header("Cache-Control", "no-store");
      return c.json(await svc.enroll(user.id, user.email ?? user.id, requestMeta(c.req)));
    },
  });

  route(app, {
    method: "post",
    path: "/api/2fa/verify",
    summary: "Check a TOTP or recovery code: a right one verifies this sign-in (D20); the first confirms a pending enrollment",
    tags: ["2fa"],
    rateLimit: ["auth"],
    body: CodeBody,
    responses: {
      200: { description: "Verified", schema: VerifyResponse },
      401: { description: "Wrong or replayed code", schema: VerifyFailure },
    },
    handler: async (c, { body }) => {
      const user = c.get("user");
      return c.json(await service(c).verify(user.id, body.code, requestMeta(c.req), user.signIn));
    },
  });

  route(app, {
    method: "get",
    path: "/api/2fa/status",
    summary: "Whether 2FA is enrolled, by which method and since when",
    tags: ["2fa"],
    responses: { 200: { description: "Status", schema: StatusResponse } },
    handler: async (c) => c.json(await service(c).status(c.get("user").id)),
  });

  route(app, {
    method: "post",
    path: "/api/2fa/disable",
    summary: "Turn 2FA off with a valid TOTP code or a recovery code",
    tags: ["2fa"],
    rateLimit: ["auth"],
    stepUp: { sensitive: true },
    body: CodeBody,
    responses: { 200: { description: "Disabled", schema: SuccessResponse } },
    handler: async (c, { body }) => {
      await service(c).disable(c.get("user").id, body.code, requestMeta(c.req));
      return c.json({ success: true as const });
    },
  });
}
