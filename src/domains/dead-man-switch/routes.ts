import type { Context, Hono, MiddlewareHandler } from "hono";
import { recoveryTimers } from "../../../durable-objects/recovery-timer";
import { dbFor, directoryDb } from "../../db/client";
import { route } from "../../http/route";
import { requestMeta, type AppEnv } from "../../http/types";
import { idParam } from "../../lib/validators";
import {
  CheckInResponse,
  ClaimBody,
  ClaimResponse,
  RecipientBody,
  RecipientResponse,
  SaveResponse,
  StatusResponse,
  SuccessResponse,
  SwitchBody,
  TransfersResponse,
} from "./schema";
import { applySignIn, DeadManSwitchService } from "./service";
import { errorName, logJson } from "../../lib/log";

/** DECISIONS D3: creating, changing or deleting the switch needs a sign-in within 90 seconds. */
const STEP_UP = { maxAge: 90 };

function service(c: Context<AppEnv>) {
  return new DeadManSwitchService(
    directoryDb(c.env),
    (userId) => dbFor(c.env, userId),
    recoveryTimers(c.env.RECOVERY_TIMER),
  );
}

/**
 * DECISIONS D7 "a sign-in resets the timer": after any authenticated request, a token whose
 * auth_time is newer than the switch's last check-in counts as one. Cheap: it touches D1 once per
 * (user, auth_time) per isolate and never fails the request it follows.
 */
export const signInResetsDeadManSwitch: MiddlewareHandler<AppEnv> =
  async function signInResetsDeadManSwitch(c, next) {
    await next();
    const user = c.get("user");
    // A 401 (a sign-in still owing its 2FA code, D20) is not yet the owner signing in.
    if (!user || user.authTime === undefined || c.res.status >= 500 || c.res.status === 401) return;
    try {
      await applySignIn(directoryDb(c.env), recoveryTimers(c.env.RECOVERY_TIMER), user);
    } catch (err) {
      logJson("error", "sign-in check-in failed", { error: errorName(err) });
    }
  };

export function registerDeadManSwitchRoutes(app: Hono<AppEnv>) {
  route(app, {
    method: "get",
    path: "/api/dead-man-switch",
    summary:
      "The caller's dead man's switch with recipients, recent log and days remaining (switch null when none)",
    tags: ["dead-man-switch"],
    responses: { 200: { description: "Status", schema: StatusResponse } },
    handler: async (c) => c.json(await service(c).status(c.get("user"))),
  });

  route(app, {
    method: "post",
    path: "/api/dead-man-switch",
    summary:
      "Create (201) or update the given fields (200) of the switch; also counts as a check-in",
    tags: ["dead-man-switch"],
    rateLimit: ["dead_man_switch_post"],
    stepUp: STEP_UP,
    body: SwitchBody,
    responses: {
      200: { description: "Updated", schema: SaveResponse },
      201: { description: "Created", schema: SaveResponse },
    },
    handler: async (c, { body }) => {
      const { created, switch: sw } = await service(c).save(
        c.get("user"),
        body,
        requestMeta(c.req),
      );
      return c.json({ success: true as const, switch: sw }, created ? 201 : 200);
    },
  });

  route(app, {
    method: "delete",
    path: "/api/dead-man-switch",
    summary: "Delete the switch, its timer, recipients and pending transfers",
    tags: ["dead-man-switch"],
    rateLimit: ["dead_man_switch_post"],
    stepUp: STEP_UP,
    responses: { 200: { description: "Deleted", schema: SuccessResponse } },
    handler: async (c) => {
      await service(c).remove(c.get("user"), requestMeta(c.req));
      return c.json({ success: true as const });
    },
  });

  route(app, {
    method: "post",
    path: "/api/dead-man-switch/check-in",
    summary: "Reset the inactivity timer",
    tags: ["dead-man-switch"],
    rateLimit: ["dead_man_switch_check_in"],
    responses: { 200: { description: "Checked in", schema: CheckInResponse } },
    handler: async (c) => c.json(await service(c).checkIn(c.get("user"))),
  });

  route(app, {
    method: "post",
    path: "/api/dead-man-switch/recipients",
    summary: "Add a recipient with the owner's recovery key wrapped for them",
    tags: ["dead-man-switch"],
    rateLimit: ["dead_man_switch_recipients"],
    stepUp: STEP_UP,
    body: RecipientBody,
    responses: { 201: { description: "Added", schema: RecipientResponse } },
    handler: async (c, { body }) =>
      c.json(
        { recipient: await service(c).addRecipient(c.get("user"), body, requestMeta(c.req)) },
        201,
      ),
  });

  route(app, {
    method: "delete",
    path: "/api/dead-man-switch/recipients/:id",
    summary: "Remove a recipient and the key wrapped for them",
    tags: ["dead-man-switch"],
    rateLimit: ["dead_man_switch_recipients"],
    stepUp: STEP_UP,
    params: idParam,
    responses: { 200: { description: "Removed", schema: SuccessResponse } },
    handler: async (c, { params }) => {
      await service(c).removeRecipient(c.get("user"), params.id, requestMeta(c.req));
      return c.json({ success: true as const });
    },
  });

  route(app, {
    method: "get",
    path: "/api/dead-man-switch/transfers",
    summary: "Triggered switches that name the caller as a recipient (no keys)",
    tags: ["dead-man-switch"],
    responses: { 200: { description: "Transfers", schema: TransfersResponse } },
    handler: async (c) => c.json({ transfers: await service(c).transfers(c.get("user")) }),
  });

  route(app, {
    method: "post",
    path: "/api/dead-man-switch/transfers/:id/claim",
    summary: "Retrieve the wrapped recovery key of a released transfer (recipient only)",
    tags: ["dead-man-switch"],
    rateLimit: ["dead_man_switch_post"],
    params: idParam,
    body: ClaimBody,
    responses: { 200: { description: "The wrapped key", schema: ClaimResponse } },
    handler: async (c, { params, body }) =>
      c.json(
        await service(c).claim(c.get("user"), params.id, body.secret_phrase, requestMeta(c.req)),
      ),
  });
}
