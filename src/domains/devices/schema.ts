import { z } from "zod";
import { NextCursor, PageQuery } from "../../kernel/pagination";

export const DEVICE_TYPES = ["desktop", "mobile", "tablet"] as const;
export const TRUST_LEVELS = ["trusted", "recognized", "unknown"] as const;

/** The fingerprint is the SHA-256 hex digest of the client's device signals (spec "Trusted device"). */
export const Fingerprint = z
  .string()
  .trim()
  .regex(/^[0-9a-fA-F]{64}$/, "must be a SHA-256 hex digest")
  .transform((v) => v.toLowerCase());

const label = z.string().trim().min(1).max(100);

/** The device's DPoP key (RFC 9449): a P-256 public JWK; a private part is refused. */
const DevicePublicKey = z
  .object({
    kty: z.literal("EC"),
    crv: z.literal("P-256"),
    x: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
    y: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
    d: z.undefined({ message: "must be a public key" }).optional(),
  })
  .transform(({ kty, crv, x, y }) => ({ kty, crv, x, y }));

export const RegisterDeviceBody = z.object({
  fingerprint: Fingerprint,
  publicKey: DevicePublicKey.optional(),
  deviceName: label.optional(),
  deviceType: z.enum(DEVICE_TYPES).optional(),
  os: label.optional(),
  browser: label.optional(),
});
export type RegisterDeviceInput = z.infer<typeof RegisterDeviceBody>;

export const UpdateDeviceBody = z
  .object({ deviceName: label, trustLevel: z.enum(TRUST_LEVELS) })
  .partial()
  .refine((b) => b.deviceName !== undefined || b.trustLevel !== undefined, {
    message: "deviceName or trustLevel is required",
  });
export type UpdateDeviceInput = z.infer<typeof UpdateDeviceBody>;

export const Device = z.object({
  id: z.string(),
  user_id: z.string(),
  /** A short keyed hash of the fingerprint, to tell devices apart; the fingerprint is never returned. */
  fingerprint_hint: z.string(),
  /** Registered with a DPoP key: counts as this device only with a proof by it. */
  key_bound: z.boolean(),
  device_name: z.string(),
  device_type: z.enum(DEVICE_TYPES),
  os: z.string().nullable(),
  browser: z.string().nullable(),
  ip_address: z.string().nullable(),
  trust_level: z.enum(TRUST_LEVELS),
  is_current: z.boolean(),
  last_active_at: z.string(),
  trusted_at: z.string().nullable(),
  created_at: z.string(),
});

export const DeviceResponse = z.object({ device: Device });
export const DeviceListResponse = z.object({ devices: z.array(Device), next_cursor: NextCursor });
export const ListDevicesQuery = PageQuery;
export { SuccessResponse } from "../../kernel/schemas";
export const NonceResponse = z.object({ nonce: z.string() });
