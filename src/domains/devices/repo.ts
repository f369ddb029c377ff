import { and, eq, ne, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { devices, type DeviceRow } from "../../db/schema";
import { auditInsert, type AuditInput } from "../audit";
import { rawD1, rowsChanged } from "../../db/d1";
import { keysetPage, type Order } from "../../db/keyset";
import type { Page, PageParams } from "../../kernel/pagination";

/**
 * The current device first, then newest registered first. Not by last activity: every request of
 * a device moves it, so pages read one after the other would skip and repeat devices.
 */
const CURRENT_THEN_NEWEST: Order<typeof devices> = {
  dir: "desc",
  keys: (t) => [t.isCurrent, t.createdAt],
};

export async function list(db: Db, userId: string, page: PageParams): Promise<Page<DeviceRow>> {
  const mine = (t: typeof devices) => eq(t.userId, userId);
  return keysetPage(
    db,
    { table: devices, order: CURRENT_THEN_NEWEST, scope: mine, page },
    ({ after, orderBy, take }) =>
      db
        .select()
        .from(devices)
        .where(and(mine(devices), after))
        .orderBy(...orderBy)
        .limit(take)
        .all(),
  );
}

export async function hasAny(db: Db, userId: string): Promise<boolean> {
  return !!(await db
    .select({ id: devices.id })
    .from(devices)
    .where(eq(devices.userId, userId))
    .get());
}

export async function findById(db: Db, userId: string, id: string): Promise<DeviceRow | undefined> {
  return db
    .select()
    .from(devices)
    .where(and(eq(devices.userId, userId), eq(devices.id, id)))
    .get();
}

/** Clears is_current on the user's other devices, only if `fingerprint` is registered (so a failed insert changes nothing). */
function clearOtherCurrent(db: Db, userId: string, fingerprint: string) {
  return db
    .update(devices)
    .set({ isCurrent: false })
    .where(
      and(
        eq(devices.userId, userId),
        ne(devices.deviceFingerprint, fingerprint),
        eq(devices.isCurrent, true),
        sql`EXISTS (SELECT 1 FROM devices d WHERE d.user_id = ${userId} AND d.device_fingerprint = ${fingerprint})`,
      ),
    );
}

export async function findByFingerprint(
  db: Db,
  userId: string,
  fingerprint: string,
): Promise<DeviceRow | undefined> {
  return db
    .select()
    .from(devices)
    .where(and(eq(devices.userId, userId), eq(devices.deviceFingerprint, fingerprint)))
    .get();
}

export type Refresh = {
  os?: string;
  browser?: string;
  ipAddress: string | null;
  lastActiveAt: string;
  dpopJkt: string | null;
};

/** Re-registration: the device becomes current, the others stop being so; trust is untouched. */
export async function refresh(
  db: Db,
  userId: string,
  fingerprint: string,
  r: Refresh,
): Promise<DeviceRow | undefined> {
  const set: Partial<DeviceRow> = {
    isCurrent: true,
    lastActiveAt: r.lastActiveAt,
    ipAddress: r.ipAddress,
    dpopJkt: r.dpopJkt,
  };
  if (r.os !== undefined) set.os = r.os;
  if (r.browser !== undefined) set.browser = r.browser;
  const [updated] = await db.batch([
    db
      .update(devices)
      .set(set)
      .where(and(eq(devices.userId, userId), eq(devices.deviceFingerprint, fingerprint)))
      .returning(),
    clearOtherCurrent(db, userId, fingerprint),
  ]);
  return updated[0];
}

/**
 * Inserts a new device while the user holds fewer than `max`; the count and the insert are one
 * statement. Returns "conflict" when the fingerprint was registered concurrently.
 */
export async function insertUnderLimit(
  db: Db,
  row: DeviceRow,
  max: number,
): Promise<"inserted" | "limit" | "conflict"> {
  // drizzle cannot batch an INSERT ... SELECT with a guard, so both statements go to D1's own batch
  // (one transaction), the second one built by drizzle.
  const clear = clearOtherCurrent(db, row.userId, row.deviceFingerprint).toSQL();
  const d1 = rawD1(db);
  const [inserted] = await d1.batch([
    d1
      .prepare(
        `INSERT INTO devices (id, user_id, device_fingerprint, device_name, device_type, os, browser, ip_address,
           trust_level, is_current, last_active_at, trusted_at, created_at, dpop_jkt)
         SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?
         WHERE (SELECT count(*) FROM devices WHERE user_id = ?) < ?
         ON CONFLICT (user_id, device_fingerprint) DO NOTHING`,
      )
      .bind(
        row.id,
        row.userId,
        row.deviceFingerprint,
        row.deviceName,
        row.deviceType,
        row.os,
        row.browser,
        row.ipAddress,
        row.trustLevel,
        row.lastActiveAt,
        row.trustedAt,
        row.createdAt,
        row.dpopJkt,
        row.userId,
        max,
      ),
    d1.prepare(clear.sql).bind(...clear.params),
  ]);
  if (rowsChanged(inserted) > 0) return "inserted";
  const existing = await db
    .select({ id: devices.id })
    .from(devices)
    .where(
      and(eq(devices.userId, row.userId), eq(devices.deviceFingerprint, row.deviceFingerprint)),
    )
    .get();
  return existing ? "conflict" : "limit";
}

export async function update(
  db: Db,
  userId: string,
  id: string,
  set: Partial<DeviceRow>,
  audit: AuditInput,
): Promise<DeviceRow | undefined> {
  const [updated] = await db.batch([
    db
      .update(devices)
      .set(set)
      .where(and(eq(devices.userId, userId), eq(devices.id, id)))
      .returning(),
    auditInsert(db, audit),
  ]);
  return updated[0];
}

export async function remove(
  db: Db,
  userId: string,
  id: string,
  audit: AuditInput,
): Promise<boolean> {
  const [deleted] = await db.batch([
    db.delete(devices).where(and(eq(devices.userId, userId), eq(devices.id, id))),
    auditInsert(db, audit),
  ]);
  return rowsChanged(deleted) > 0;
}
