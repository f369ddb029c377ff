import type { Context, Hono } from "hono";
import { dbFor } from "../../db/client";
import { route } from "../../http/route";
import { provenKeyOf, stepUp, UNTRUSTED_DEVICE_MAX_AGE } from "../../http/step-up";
import { requestMeta, type AppEnv } from "../../http/types";
import { idParam } from "../../lib/validators";
import { issueNonce } from "../../lib/dpop";
import {
  DeviceListResponse,
  ListDevicesQuery,
  DeviceResponse,
  NonceResponse,
  RegisterDeviceBody,
  SuccessResponse,
  UpdateDeviceBody,
} from "./schema";
import { DeviceService } from "./service";

function service(c: Context<AppEnv>) {
  return new DeviceService(
    dbFor(c.env, c.get("user").id),
    c.get("config").CSRF_SECRET,
    Date.now,
    c.get("config"),
  );
}

const raiseTrustStepUp = stepUp({ sensitive: true });
/** A new device is registered trusted: only a recent sign-in may add one (D3's 300 s). */
const newDeviceStepUp = stepUp({ maxAge: UNTRUSTED_DEVICE_MAX_AGE });

export function registerDeviceRoutes(app: Hono<AppEnv>) {
  route(app, {
    method: "get",
    path: "/api/devices",
    summary: "The caller's registered devices, current first, then newest registered first",
    tags: ["devices"],
    query: ListDevicesQuery,
    responses: { 200: { description: "Devices", schema: DeviceListResponse } },
    handler: async (c, { query }) => c.json(await service(c).list(c.get("user").id, query)),
  });

  route(app, {
    method: "get",
    path: "/api/devices/dpop-nonce",
    summary:
      "A server nonce for DPoP proofs (RFC 9449 section 8), also sent as the DPoP-Nonce header",
    tags: ["devices"],
    responses: { 200: { description: "Nonce, accepted for 300 s", schema: NonceResponse } },
    handler: async (c) => {
      const nonce = await issueNonce(c.get("config").CSRF_SECRET);
      c.header("DPoP-Nonce", nonce);
      c.header("Cache-Control", "no-store");
      return c.json({ nonce });
    },
  });

  route(app, {
    method: "post",
    path: "/api/devices",
    summary: "Register the calling device (201), or re-register it by fingerprint (200)",
    tags: ["devices"],
    rateLimit: ["devices_register"],
    body: RegisterDeviceBody,
    responses: {
      201: { description: "Registered as a new, trusted device", schema: DeviceResponse },
      401: {
        description:
          "STEP_UP_REQUIRED: a new fingerprint, or a key for a device known by its fingerprint alone, needs a sign-in at most 300 s old",
      },
      403: {
        description:
          "publicKey without a DPoP proof by it, or a key-bound device without a proof by its key",
      },
      200: { description: "Re-registered; trust unchanged", schema: DeviceResponse },
    },
    handler: async (c, { body }) => {
      const { created, device } = await service(c).register(
        c.get("user").id,
        body,
        requestMeta(c.req),
        provenKeyOf(c),
        () => newDeviceStepUp(c, async () => {}) as Promise<void>,
      );
      return c.json({ device }, created ? 201 : 200);
    },
  });

  route(app, {
    method: "patch",
    path: "/api/devices/:id",
    summary: "Rename a device or change its trust level; raising trust needs a recent sign-in",
    tags: ["devices"],
    rateLimit: ["devices_update"],
    params: idParam,
    body: UpdateDeviceBody,
    responses: { 200: { description: "Updated device", schema: DeviceResponse } },
    handler: async (c, { params, body }) => {
      const device = await service(c).update(
        c.get("user").id,
        params.id,
        body,
        requestMeta(c.req),
        () => raiseTrustStepUp(c, async () => {}) as Promise<void>,
      );
      return c.json({ device });
    },
  });

  route(app, {
    method: "delete",
    path: "/api/devices/:id",
    summary: "Revoke a device; it registers as new next time",
    tags: ["devices"],
    rateLimit: ["devices_revoke"],
    params: idParam,
    responses: { 200: { description: "Revoked", schema: SuccessResponse } },
    handler: async (c, { params }) => {
      await service(c).revoke(c.get("user").id, params.id, requestMeta(c.req));
      return c.json({ success: true as const });
    },
  });
}
