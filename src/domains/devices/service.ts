import type { Config } from "../../env";
import type { Db } from "../../db/client";
import type { DeviceRow } from "../../db/schema";
import type { RequestMeta } from "../../kernel/context";
import type { PageParams } from "../../kernel/pagination";
import { calculateJwkThumbprint, type JWK } from "jose";
import { hmacSha256, randomId, toHex } from "../../lib/crypto";
import { AppError, conflict, ErrorCode, notFound } from "../../lib/errors";
import { notify } from "../notifications";
import * as repo from "./repo";
import type { RegisterDeviceInput, UpdateDeviceInput } from "./schema";
import type { ProvenKey, TrustLevel } from "../../db/device-trust";

const forbidden = (message: string) => new AppError(ErrorCode.FORBIDDEN, message);
import { deviceTypeFromUserAgent } from "./user-agent";
import { errorName, logJson } from "../../lib/log";

/** Bounds the registry per user; a user past it revokes an old device first. */
export const MAX_DEVICES_PER_USER = 100;

const TRUST_RANK: Record<TrustLevel, number> = { unknown: 0, recognized: 1, trusted: 2 };

/**
 * A device as listed. The fingerprint never leaves the server: it is what a request presents to be
 * that device. A short keyed hash tells devices apart without being guessable from device signals.
 */
export async function toDevice(row: DeviceRow, hintKey: string) {
  return {
    id: row.id,
    user_id: row.userId,
    fingerprint_hint: toHex(
      await hmacSha256(hintKey, `device-hint|${row.deviceFingerprint}`),
    ).slice(0, 8),
    key_bound: row.dpopJkt !== null,
    device_name: row.deviceName,
    device_type: row.deviceType,
    os: row.os,
    browser: row.browser,
    ip_address: row.ipAddress,
    trust_level: row.trustLevel,
    is_current: row.isCurrent,
    last_active_at: row.lastActiveAt,
    trusted_at: row.trustedAt,
    created_at: row.createdAt,
  };
}

function defaultName(input: RegisterDeviceInput): string {
  return [input.browser, input.os].filter(Boolean).join(" on ") || "Unnamed device";
}

export class DeviceService {
  constructor(
    private readonly db: Db,
    private readonly hintKey: string,
    private readonly clock: () => number = Date.now,
    /** Lets the new-device notice go out by Web Push (docs/decisions/client.md, "Client: entry tools and account pages"). */
    private readonly config?: Config,
  ) {}

  async list(userId: string, page: PageParams) {
    const rows = await repo.list(this.db, userId, page);
    return {
      devices: await Promise.all(rows.items.map((r) => toDevice(r, this.hintKey))),
      next_cursor: rows.next_cursor,
    };
  }

  /**
   * RFC 9449 key binding. A device bound to a key is re-registered only with a proof by that key,
   * and its key is not replaced (revoke the device to start over). A key is bound only with a proof
   * by it, so a copied public key is worth nothing. Returns the thumbprint the device ends with.
   */
  private async keyFor(
    existing: DeviceRow | undefined,
    input: RegisterDeviceInput,
    proven: ProvenKey,
    requireRecentAuth: () => Promise<void>,
  ): Promise<string | null> {
    if (existing?.dpopJkt && (await proven()) !== existing.dpopJkt)
      throw forbidden("This device is bound to a key: sign the request with it (DPoP)");
    if (!input.publicKey) return existing?.dpopJkt ?? null;
    const jkt = await calculateJwkThumbprint(input.publicKey as JWK);
    if (existing?.dpopJkt && existing.dpopJkt !== jkt)
      throw forbidden("This device is bound to another key; revoke it to register a new one");
    if ((await proven()) !== jkt)
      throw forbidden("Prove possession of publicKey with a DPoP proof signed by it");
    // Binding a key to a device known by its fingerprint alone decides who that device is from now
    // on: as much a new device as a new fingerprint, so it takes the same recent sign-in.
    if (existing && !existing.dpopJkt) await requireRecentAuth();
    return jkt;
  }

  /**
   * Registers the calling device, or re-registers it (spec "States", Trusted device). The device type
   * comes from the User-Agent by the spec's rule; the body's deviceType is used only without one.
   * A new fingerprint is registered trusted, so registering one is itself a trust decision: it
   * calls `requireRecentAuth` (a sign-in at most 300 s old, D3), or any bearer token could make
   * itself a trusted device with one call. Re-registering a known fingerprint does not.
   */
  async register(
    userId: string,
    input: RegisterDeviceInput,
    meta: RequestMeta,
    proven: ProvenKey,
    requireRecentAuth: () => Promise<void>,
  ) {
    const now = new Date(this.clock()).toISOString();
    const ip = meta.ip === "unknown" ? null : meta.ip;
    for (let attempt = 0; attempt < 2; attempt++) {
      const existing = await repo.findByFingerprint(this.db, userId, input.fingerprint);
      const dpopJkt = await this.keyFor(existing, input, proven, requireRecentAuth);
      if (!existing) await requireRecentAuth();
      const refreshed =
        existing &&
        (await repo.refresh(this.db, userId, input.fingerprint, {
          os: input.os,
          browser: input.browser,
          ipAddress: ip,
          lastActiveAt: now,
          dpopJkt,
        }));
      if (refreshed) return { created: false, device: await toDevice(refreshed, this.hintKey) };
      const row: DeviceRow = {
        id: randomId(),
        userId,
        deviceFingerprint: input.fingerprint,
        deviceName: input.deviceName ?? defaultName(input),
        deviceType: meta.userAgent
          ? deviceTypeFromUserAgent(meta.userAgent)
          : (input.deviceType ?? "desktop"),
        os: input.os ?? null,
        browser: input.browser ?? null,
        ipAddress: ip,
        trustLevel: "trusted",
        isCurrent: true,
        lastActiveAt: now,
        trustedAt: now,
        createdAt: now,
        dpopJkt,
      };
      const hadDevices = await repo.hasAny(this.db, userId);
      const outcome = await repo.insertUnderLimit(this.db, row, MAX_DEVICES_PER_USER);
      if (outcome === "inserted") {
        if (hadDevices) await this.tellOwner(row);
        return { created: true, device: await toDevice(row, this.hintKey) };
      }
      if (outcome === "limit")
        throw conflict(
          `At most ${MAX_DEVICES_PER_USER} devices can be registered; revoke one first`,
        );
    }
    throw conflict("The device was registered concurrently; retry");
  }

  /**
   * A device the account has not seen before is what a stolen session looks like, so the owner hears
   * of it on their other devices. The first device of an account is no news. The registration stands
   * even if the notice cannot be written.
   */
  private async tellOwner(row: DeviceRow) {
    const what = [row.browser, row.os].filter(Boolean).join(" on ") || row.deviceType;
    try {
      await notify(
        this.db,
        {
          userId: row.userId,
          type: "new_device",
          title: "New device signed in",
          body: `${row.deviceName} (${what})${row.ipAddress ? ` from ${row.ipAddress}` : ""} was registered on your account. If this was not you, revoke it in Devices and change your password.`,
          color: "warning",
          icon: "device",
          actionUrl: "/devices",
          metadata: { deviceId: row.id, deviceType: row.deviceType, ipAddress: row.ipAddress },
        },
        this.config,
      );
    } catch (err) {
      logJson("error", "devices: new-device notification not written", { error: errorName(err) });
    }
  }

  /**
   * Renames (cosmetic) and changes trust. Raising trust calls `requireRecentAuth` first, so a
   * stolen session on a lesser device cannot promote it without signing in again.
   */
  async update(
    userId: string,
    id: string,
    input: UpdateDeviceInput,
    meta: RequestMeta,
    requireRecentAuth: () => Promise<void>,
  ) {
    const current = await repo.findById(this.db, userId, id);
    if (!current) throw notFound("Device");
    const set: Partial<DeviceRow> = {};
    const changes: Record<string, { from: string | null; to: string }> = {};
    if (input.deviceName !== undefined && input.deviceName !== current.deviceName) {
      set.deviceName = input.deviceName;
      changes.device_name = { from: current.deviceName, to: input.deviceName };
    }
    if (input.trustLevel !== undefined && input.trustLevel !== current.trustLevel) {
      if (TRUST_RANK[input.trustLevel] > TRUST_RANK[current.trustLevel]) await requireRecentAuth();
      set.trustLevel = input.trustLevel;
      set.trustedAt = input.trustLevel === "trusted" ? new Date(this.clock()).toISOString() : null;
      changes.trust_level = { from: current.trustLevel, to: input.trustLevel };
    }
    if (Object.keys(set).length === 0) return toDevice(current, this.hintKey);
    const updated = await repo.update(this.db, userId, id, set, {
      userId,
      action: "device.updated",
      targetType: "device",
      targetId: id,
      meta,
      details: { changes },
    });
    if (!updated) throw notFound("Device");
    return toDevice(updated, this.hintKey);
  }

  /** Removes the device; it appears as new when it registers again. Sessions are not ended. */
  async revoke(userId: string, id: string, meta: RequestMeta) {
    const current = await repo.findById(this.db, userId, id);
    if (!current) throw notFound("Device");
    const removed = await repo.remove(this.db, userId, id, {
      userId,
      action: "device.revoked",
      targetType: "device",
      targetId: id,
      meta,
      details: {
        changes: {
          removed: {
            device_name: current.deviceName,
            trust_level: current.trustLevel,
            device_type: current.deviceType,
          },
        },
      },
    });
    if (!removed) throw notFound("Device");
  }
}
