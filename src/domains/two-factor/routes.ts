import type { Context, Hono } from "hono";
import { dbFor, directoryDb } from "../../db/client";
import { route } from "../../http/route";
import { stepUp } from "../../http/step-up";
import { requestMeta, type AppEnv } from "../../http/types";
import {
  CodeBody,
  EnrollBody,
  EnrollResponse,
  StatusResponse,
  SuccessResponse,
  VerifyFailure,
  VerifyResponse,
} from "./schema";
import { mailerFor } from "../notifications";
import { tellOwner, type TwoFactorChange } from "./notices";
import { TwoFactorService } from "./service";

function service(c: Context<AppEnv>) {
  const config = c.get("config");
  return new TwoFactorService(dbFor(c.env, c.get("user").id), config.dataKeys, config.TOTP_ISSUER);
}

/** Replacing a confirmed second factor weakens the account as much as disabling it does (D3). */
const replaceStepUp = stepUp({ sensitive: true });
/**
 * A first enrollment is as sensitive (D20): a session stolen hours ago must not enrol its own
 * factor, take the recovery codes and lock the owner out. It needs a recent sign-in everywhere,
 * trusted device or not, since until now the sign-in was the account's only factor.
 */
export const FIRST_ENROLL_MAX_AGE = 300;
const firstEnrollStepUp = stepUp({ maxAge: FIRST_ENROLL_MAX_AGE });

async function tell(c: Context<AppEnv>, change: TwoFactorChange) {
  const user = c.get("user");
  const db = dbFor(c.env, user.id);
  const config = c.get("config");
  await tellOwner(
    {
      db,
      config,
      mailer: mailerFor(config, db, c.env.MAIL_QUEUE, directoryDb(c.env)),
      email: user.email ?? null,
    },
    user.id,
    change,
  );
}

export function registerTwoFactorRoutes(app: Hono<AppEnv>) {
  route(app, {
    method: "post",
    path: "/api/2fa/enroll",
    summary:
      "Start 2FA enrollment: otpauth URI, base32 secret and ten single-use recovery codes (shown once)",
    tags: ["2fa"],
    rateLimit: ["two_factor_enroll"],
    body: EnrollBody,
    responses: {
      200: { description: "Enrollment; pending until a code is verified", schema: EnrollResponse },
    },
    handler: async (c, { body }) => {
      const user = c.get("user");
      const svc = service(c);
      if (await svc.isEnrolled(user.id)) {
        await replaceStepUp(c, async () => {});
        await svc.requireCurrentCode(user.id, body.code, requestMeta(c.req));
      } else {
        await firstEnrollStepUp(c, async () => {});
      }
      const { replaced, ...enrollment } = await svc.enroll(
        user.id,
        user.email ?? user.id,
        requestMeta(c.req),
      );
      if (replaced) await tell(c, "replaced");
      c.header("Cache-Control", "no-store");
      return c.json(enrollment);
    },
  });

  route(app, {
    method: "post",
    path: "/api/2fa/verify",
    summary:
      "Check a TOTP or recovery code: a right one verifies this sign-in (D20); the first confirms a pending enrollment",
    tags: ["2fa"],
    rateLimit: ["auth"],
    body: CodeBody,
    responses: {
      200: { description: "Verified", schema: VerifyResponse },
      401: { description: "Wrong or replayed code", schema: VerifyFailure },
    },
    handler: async (c, { body }) => {
      const user = c.get("user");
      const { answer, confirms } = await service(c).verify(
        user.id,
        body.code,
        requestMeta(c.req),
        user.signIn,
      );
      // A replacement was told when the old factor stopped working (at its enrollment).
      if (confirms === "enabled") await tell(c, "enabled");
      return c.json(answer);
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
      await tell(c, "disabled");
      return c.json({ success: true as const });
    },
  });
}
