import { and, count, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { keysetPage, type Order } from "../../db/keyset";
import { discoveredAccounts, type DiscoveredAccountRow } from "../../db/schema";
import type { Page, PageParams } from "../../kernel/pagination";
import { batchable } from "../../db/d1";
import { placeholderInserts, type Placeholder as EntryPlaceholder } from "../passwords";

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

export { ownsEntry as liveEntryExists, vaultRefs, type VaultRef } from "../passwords";

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

export type Placeholder = EntryPlaceholder & { accountId: string };

/**
 * Add-to-vault's writes, all or nothing at the entry limit without a read before them (docs/decisions/hardening.md, "Hardening: limits, abuse and failure"
 * item 10): the placeholder entries (the passwords domain's guarded inserts, which go in whole or
 * not at all) and, with each, its account's link, only when the first entry is in. D1 runs the
 * batch as one serialised transaction, so a refused first entry writes nothing.
 * The batch must start with `advanceClock` (the rows are stamped with the commit clock).
 */
export function placeholderStatements(
  db: Db,
  userId: string,
  items: Placeholder[],
  max: number,
  now: string,
) {
  const { inserts, firstStored } = placeholderInserts(db, userId, items, max, now);
  return items.flatMap((p, i) => [
    inserts[i]!,
    batchable(
      db,
      sql`
      UPDATE discovered_accounts SET in_vault = 1, vault_password_id = ${p.id}, updated_at = ${now}
      WHERE user_id = ${userId} AND id = ${p.accountId} AND ${firstStored}`,
    ),
  ]);
}
