import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const devices = sqliteTable(
  "devices",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    deviceFingerprint: text("device_fingerprint").notNull(),
    deviceName: text("device_name").notNull(),
    deviceType: text("device_type", { enum: ["desktop", "mobile", "tablet"] }).notNull(),
    os: text("os"),
    browser: text("browser"),
    ipAddress: text("ip_address"),
    trustLevel: text("trust_level", { enum: ["trusted", "recognized", "unknown"] }).notNull(),
    isCurrent: integer("is_current", { mode: "boolean" }).notNull().default(false),
    lastActiveAt: text("last_active_at").notNull(),
    trustedAt: text("trusted_at"),
    createdAt: text("created_at").notNull(),
    /** RFC 7638 thumbprint of the device's DPoP key (RFC 9449); null for a device without one. */
    dpopJkt: text("dpop_jkt"),
  },
  (t) => [
    uniqueIndex("devices_user_fingerprint").on(t.userId, t.deviceFingerprint),
    index("devices_user").on(t.userId),
  ],
);

export type DeviceRow = typeof devices.$inferSelect;
