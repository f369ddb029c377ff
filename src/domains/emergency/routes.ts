import type { Context, Hono } from "hono";
import { recoveryTimers } from "../../../durable-objects/recovery-timer";
import { route } from "../../http/route";
import { requestMeta, type AppEnv } from "../../http/types";
import { idParam } from "../../lib/validators";
import {
  AcceptBody,
  AccessQuery,
  AccessResponse,
  AddBody,
  ContactResponse,
  ListQuery,
  ListResponse,
  RequestBody,
  RespondBody,
  SuccessResponse,
  UpdateBody,
  VaultResponse,
} from "./schema";
import { EmergencyService } from "./service";
import { emergencyCtx } from "./timer";

function service(c: Context<AppEnv>) {
  return new EmergencyService(
    emergencyCtx(c.env, c.get("config"), c.get("user").id),
    recoveryTimers(c.env.RECOVERY_TIMER),
  );
}

/** DECISIONS D3/D11: adding a contact and responding are sensitive (300 s on untrusted devices). */
const SENSITIVE = { sensitive: true };

export function registerEmergencyRoutes(app: Hono<AppEnv>) {
  route(app, {
    method: "get",
    path: "/api/vault/emergency",
    summary: "The caller's emergency contacts, as owner and as contact",
    tags: ["emergency"],
    query: ListQuery,
    responses: { 200: { description: "Contacts", schema: ListResponse } },
    handler: async (c, { query }) => c.json(await service(c).list(c.get("user"), query)),
  });

  route(app, {
    method: "post",
    path: "/api/vault/emergency",
    summary: "Invite a trusted contact (invitation link by email, valid 7 days)",
    tags: ["emergency"],
    rateLimit: ["emergency_add"],
    stepUp: SENSITIVE,
    body: AddBody,
    responses: { 201: { description: "Invited", schema: ContactResponse } },
    handler: async (c, { body }) =>
      c.json({ contact: await service(c).add(c.get("user"), body, requestMeta(c.req)) }, 201),
  });

  route(app, {
    method: "get",
    path: "/api/vault/emergency/access",
    summary: "The wrapped access key, for the contact only, while access is granted",
    tags: ["emergency"],
    query: AccessQuery,
    responses: { 200: { description: "Key material", schema: AccessResponse } },
    handler: async (c, { query }) =>
      c.json(await service(c).access(c.get("user"), query.contact_id, requestMeta(c.req))),
  });

  route(app, {
    method: "get",
    path: "/api/vault/emergency/:id/vault",
    summary:
      "The owner's vault for a contact with granted access (DECISIONS D15): ciphertext, read-only",
    tags: ["emergency"],
    params: idParam,
    responses: {
      200: {
        description: "The owner's live entries as a full sync pull holds them",
        schema: VaultResponse,
      },
    },
    handler: async (c, { params }) => {
      c.header("Cache-Control", "no-store");
      return c.json(await service(c).readVault(c.get("user"), params.id, requestMeta(c.req)));
    },
  });

  route(app, {
    method: "post",
    path: "/api/vault/emergency/accept",
    summary: "Accept an invitation by its token",
    tags: ["emergency"],
    rateLimit: ["emergency_accept"],
    body: AcceptBody,
    responses: { 200: { description: "Accepted", schema: ContactResponse } },
    handler: async (c, { body }) =>
      c.json({ contact: await service(c).accept(c.get("user"), body, requestMeta(c.req)) }),
  });

  route(app, {
    method: "post",
    path: "/api/vault/emergency/request",
    summary: "Request access (contact only; record must be active); grant_at = now + wait_hours",
    tags: ["emergency"],
    rateLimit: ["emergency_request"],
    body: RequestBody,
    responses: { 200: { description: "Requested", schema: ContactResponse } },
    handler: async (c, { body }) =>
      c.json({
        contact: await service(c).request(c.get("user"), body.contact_id, requestMeta(c.req)),
      }),
  });

  route(app, {
    method: "post",
    path: "/api/vault/emergency/respond",
    summary: "Approve or deny a pending request (owner only)",
    tags: ["emergency"],
    rateLimit: ["emergency_respond"],
    stepUp: SENSITIVE,
    body: RespondBody,
    responses: { 200: { description: "Answered", schema: ContactResponse } },
    handler: async (c, { body }) =>
      c.json({
        contact: await service(c).respond(
          c.get("user"),
          body.contact_id,
          body.action,
          requestMeta(c.req),
        ),
      }),
  });

  route(app, {
    method: "patch",
    path: "/api/vault/emergency/:id",
    summary: "Change wait_hours (owner only); a request in progress keeps its grant_at",
    tags: ["emergency"],
    rateLimit: ["emergency_update"],
    params: idParam,
    body: UpdateBody,
    responses: { 200: { description: "Updated", schema: ContactResponse } },
    handler: async (c, { params, body }) =>
      c.json({
        contact: await service(c).updateWait(
          c.get("user"),
          params.id,
          body.wait_hours,
          requestMeta(c.req),
        ),
      }),
  });

  route(app, {
    method: "delete",
    path: "/api/vault/emergency/:id",
    summary: "Revoke (owner only; terminal)",
    tags: ["emergency"],
    rateLimit: ["emergency_revoke"],
    params: idParam,
    responses: { 200: { description: "Revoked", schema: SuccessResponse } },
    handler: async (c, { params }) => {
      await service(c).revoke(c.get("user"), params.id, requestMeta(c.req));
      return c.json({ success: true as const });
    },
  });
}
