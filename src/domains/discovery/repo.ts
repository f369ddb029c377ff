import { and, eq, inArray, isNull } from "drizzle-orm";
import type { Db } from "../../db/client";
import { discoveredAccounts, passwords, vaultCounters, type DiscoveredAccountRow } from "../../db/schema";

export async function listAccounts(db: Db, userId: string): Promise<DiscoveredAccountRow[]> {
  return db.select().from(discoveredAccounts).where(eq(discoveredAccounts.userId, userId)).orderBy(discoveredAccounts.serviceName).all();
}

export async function findAccount(db: Db, userId: string, id: string) {
  return db.select().from(discoveredAccounts).where(and(eq(discoveredAccounts.userId, userId), eq(discoveredAccounts.id, id))).get();
}

export async function updateAccount(db: Db, userId: string, id: string, set: Partial<DiscoveredAccountRow>) {
  return db.update(discoveredAccounts).set(set).where(and(eq(discoveredAccounts.userId, userId), eq(discoveredAccounts.id, id))).returning().get();
}

export type VaultRef = { id: string; name: string; website: string | null; url: string | null; username: string | null; encryptionVersion: number; host: string | null };

export async function vaultRefs(db: Db, userId: string): Promise<VaultRef[]> {
  return db
    .select({ id: passwords.id, name: passwords.name, website: passwords.website, url: passwords.url, username: passwords.username, encryptionVersion: passwords.encryptionVersion, host: passwords.host })
    .from(passwords)
    .where(and(eq(passwords.userId, userId), isNull(passwords.deletedAt)))
    .orderBy(passwords.createdAt)
    .all();
}

export async function liveEntryExists(db: Db, userId: string, id: string): Promise<boolean> {
  const row = await db
    .select({ id: passwords.id })
    .from(passwords)
    .where(and(eq(passwords.userId, userId), eq(passwords.id, id), isNull(passwords.deletedAt)))
    .get();
  return !!row;
}

export async function liveCount(db: Db, userId: string): Promise<number> {
  const r = await db.select({ n: vaultCounters.live }).from(vaultCounters).where(eq(vaultCounters.userId, userId)).get();
  return r?.n ?? 0;
}

/** Rule 8 in one transaction: upsert what was seen (dismissed kept), delete what vanished. */
export async function replaceScanned(db: Db, userId: string, upserts: DiscoveredAccountRow[], removeIds: string[]) {
  const stmts = upserts.map((row) =>
    db
      .insert(discoveredAccounts)
      .values(row)
      .onConflictDoUpdate({
        target: [discoveredAccounts.userId, discoveredAccounts.domain],
        set: {
          serviceName: row.serviceName,
          serviceIcon: row.serviceIcon,
          serviceColor: row.serviceColor,
          category: row.category,
          loginUrl: row.loginUrl,
          inVault: row.inVault,
          vaultPasswordId: row.vaultPasswordId,
          oauthLikely: row.oauthLikely,
          emailCount: row.emailCount,
          sourceEmail: row.sourceEmail,
          lastSeenAt: row.lastSeenAt,
          updatedAt: row.updatedAt,
        },
      }),
  );
  const all = [...stmts, ...chunks(removeIds, 90).map((ids) => db.delete(discoveredAccounts).where(and(eq(discoveredAccounts.userId, userId), inArray(discoveredAccounts.id, ids))))];
  if (all.length === 0) return;
  await db.batch(all as [(typeof all)[number], ...(typeof all)[number][]]);
}

export function chunks<T>(xs: T[], n: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
}
