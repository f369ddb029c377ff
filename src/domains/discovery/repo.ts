import { and, count, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { keysetPage, type Order } from "../../db/keyset";
import { discoveredAccounts, passwords, type DiscoveredAccountRow } from "../../db/schema";
import type { Page, PageParams } from "../../kernel/pagination";
import { clockValue } from "../../db/change-clock";
import { batchable } from "../../db/d1";
import { PLACEHOLDER_ENCRYPTION_VERSION } from "../passwords";

export async function listAccounts(db: Db, userId: string): Promise<DiscoveredAccountRow[]> {
  return db
    .select()
    .from(discoveredAccounts)
    .where(eq(discoveredAccounts.userId, userId))
    .orderBy(discoveredAccounts.serviceName)
    .all();
}

/**
 * By service name, as before pagination. A rescan may rename a service (the registry changed), which
 * moves it in the order; the id keeps the order total among services of the same name.
 */
const BY_NAME: Order<typeof discoveredAccounts> = { dir: "asc", keys: (t) => [t.serviceName] };

export async function pageAccounts(
  db: Db,
  userId: string,
  includeDismissed: boolean,
  page: PageParams,
): Promise<Page<DiscoveredAccountRow>> {
  const mine = (t: typeof discoveredAccounts) => eq(t.userId, userId);
  return keysetPage(
    db,
    { table: discoveredAccounts, order: BY_NAME, scope: mine, page },
    ({ after, orderBy, take }) =>
      db
        .select()
        .from(discoveredAccounts)
        .where(
          and(
            mine(discoveredAccounts),
            includeDismissed ? undefined : eq(discoveredAccounts.dismissed, false),
            after,
          ),
        )
        .orderBy(...orderBy)
        .limit(take)
        .all(),
  );
}

/** The stats of every account, dismissed ones included, whatever page is read. */
export async function accountStats(db: Db, userId: string) {
  const t = discoveredAccounts;
  const r = await db
    .select({
      total: count(),
      inVault: sql<number>`coalesce(sum(${t.inVault}), 0)`,
      oauthLikely: sql<number>`coalesce(sum(${t.oauthLikely}), 0)`,
      dismissed: sql<number>`coalesce(sum(${t.dismissed}), 0)`,
    })
    .from(t)
    .where(eq(t.userId, userId))
    .get();
  const total = r?.total ?? 0;
  const inVault = r?.inVault ?? 0;
  return {
    total,
    inVault,
    notInVault: total - inVault,
    oauthLikely: r?.oauthLikely ?? 0,
    dismissed: r?.dismissed ?? 0,
  };
}

export async function findAccount(db: Db, userId: string, id: string) {
  return db
    .select()
    .from(discoveredAccounts)
    .where(and(eq(discoveredAccounts.userId, userId), eq(discoveredAccounts.id, id)))
    .get();
}

export async function updateAccount(
  db: Db,
  userId: string,
  id: string,
  set: Partial<DiscoveredAccountRow>,
) {
  return db
    .update(discoveredAccounts)
    .set(set)
    .where(and(eq(discoveredAccounts.userId, userId), eq(discoveredAccounts.id, id)))
    .returning()
    .get();
}

export type VaultRef = {
  id: string;
  name: string;
  website: string | null;
  url: string | null;
  username: string | null;
  encryptionVersion: number;
  host: string | null;
};

export async function vaultRefs(db: Db, userId: string): Promise<VaultRef[]> {
  return db
    .select({
      id: passwords.id,
      name: passwords.name,
      website: passwords.website,
      url: passwords.url,
      username: passwords.username,
      encryptionVersion: passwords.encryptionVersion,
      host: passwords.host,
    })
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

/** Rule 8 in one transaction: upsert what was seen (dismissed kept), delete what vanished. */
export async function replaceScanned(
  db: Db,
  userId: string,
  upserts: DiscoveredAccountRow[],
  removeIds: string[],
) {
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
  const all = [
    ...stmts,
    ...chunks(removeIds, 90).map((ids) =>
      db
        .delete(discoveredAccounts)
        .where(and(eq(discoveredAccounts.userId, userId), inArray(discoveredAccounts.id, ids))),
    ),
  ];
  if (all.length === 0) return;
  await db.batch(all as [(typeof all)[number], ...(typeof all)[number][]]);
}

export function chunks<T>(xs: T[], n: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
}

export type Placeholder = {
  id: string;
  accountId: string;
  domain: string;
  name: string;
  username: string | null;
};

/**
 * Add-to-vault's writes, all or nothing at the entry limit without a read before them (docs/decisions/hardening.md, "Hardening: limits, abuse and failure"
 * item 10). The first placeholder goes in only while the vault has room for all of them (the count
 * is the trigger-kept `vault_counters.live`, read inside the statement); every later one, and each
 * account's link, only when that first row exists. D1 runs the batch as one serialised
 * transaction, so once the first is in, the rest fit, and when it is refused nothing is written.
 * The batch must start with `advanceClock` (the rows are stamped with the commit clock).
 */
export function placeholderStatements(
  db: Db,
  userId: string,
  items: Placeholder[],
  max: number,
  now: string,
) {
  const first = items[0].id;
  const room = sql`(SELECT coalesce((SELECT live FROM vault_counters WHERE user_id = ${userId}), 0)) + ${items.length} <= ${max}`;
  const firstIn = sql`EXISTS (SELECT 1 FROM passwords WHERE id = ${first} AND user_id = ${userId})`;
  return items.flatMap((p) => [
    batchable(
      db,
      sql`
      INSERT INTO passwords (id, user_id, name, website, url, username, tags, encryption_version, search_tokens, host, created_at, updated_at, change_seq)
      SELECT ${p.id}, ${userId}, ${p.name}, ${p.domain}, ${"https://" + p.domain}, ${p.username}, '[]', ${PLACEHOLDER_ENCRYPTION_VERSION}, '[]',
        ${p.domain}, ${now}, ${now}, ${clockValue(userId)}
      WHERE ${p.id === first ? room : firstIn}`,
    ),
    batchable(
      db,
      sql`
      UPDATE discovered_accounts SET in_vault = 1, vault_password_id = ${p.id}, updated_at = ${now}
      WHERE user_id = ${userId} AND id = ${p.accountId} AND ${firstIn}`,
    ),
  ]);
}
