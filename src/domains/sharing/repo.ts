import { advanceClock } from "../../db/change-clock";
import { announceClocks, type LiveSyncBindings } from "../../db/clock-announce";
import { and, desc, eq, gt, inArray, isNull, ne, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import {
  shares,
  shareViewLogs,
  sharingKeys,
  type NewPasswordRow,
  type ShareRow,
} from "../../db/schema";
import { shareCountStatement, sharedAccounts, sharedEntryUpdateStatement } from "../passwords";
import { rawD1, rowsChanged } from "../../db/d1";
import { afterCursor, orderKeys, requireCursor, type Order, type Scope } from "../../db/keyset";
import { pageOf, type Page, type PageParams } from "../../kernel/pagination";

/**
 * docs/decisions/scale.md, "Scale: shards, a directory, many databases": shares, their view logs and sharing keys live in the directory (`directory`), since
 * owner and recipient may be on different shards; the shared entry stays on its owner's shard
 * (`ownerDb(ownerId)`). Nothing joins the two any more: a share is read first, its entry second.
 */
export type OwnerDb = (ownerId: string) => Db;

/** Live for access and for limits: not revoked and not past its expiry. */
const unexpired = (now: string) => or(isNull(shares.expiresAt), gt(shares.expiresAt, now));

type Account = {
  accountName: string;
  accountWebsite: string | null;
  accountUrl: string | null;
  accountEncryptedData: string | null;
};
export type ShareWithAccount = ShareRow & Account;

/** Newest first; `created_at` never changes, so a page boundary never moves. */
const NEWEST: Order<typeof shares> = { dir: "desc", keys: (t) => [t.createdAt] };

/** The owners' live entries behind `rows`, one query per owner; a share whose entry is deleted drops out. */
async function withEntries(ownerDb: OwnerDb, rows: ShareRow[]): Promise<ShareWithAccount[]> {
  const byOwner = new Map<string, Set<string>>();
  for (const r of rows)
    byOwner.set(r.ownerId, (byOwner.get(r.ownerId) ?? new Set()).add(r.accountId));
  const found = new Map<string, Account>();
  await Promise.all(
    [...byOwner].map(async ([ownerId, ids]) => {
      const entries = await sharedAccounts(ownerDb(ownerId), ownerId, [...ids]);
      for (const { id, ...account } of entries) found.set(`${ownerId}/${id}`, account);
    }),
  );
  return rows.flatMap((r) => {
    const account = found.get(`${r.ownerId}/${r.accountId}`);
    return account ? [{ ...r, ...account }] : [];
  });
}

/**
 * A keyset page of shares whose entries are live. The entries are on other databases, so shares of
 * deleted entries are dropped after the read and the read goes on past them until the page is full.
 */
async function livePage(
  directory: Db,
  ownerDb: OwnerDb,
  scope: Scope<typeof shares>,
  filter: SQL | undefined,
  page: PageParams,
): Promise<Page<ShareWithAccount>> {
  if (page.cursor) await requireCursor(directory, shares, scope, page.cursor);
  const live: ShareWithAccount[] = [];
  for (let after = page.cursor; ; ) {
    const rows = await directory
      .select()
      .from(shares)
      .where(
        and(scope(shares), filter, after ? afterCursor(shares, NEWEST, scope, after) : undefined),
      )
      .orderBy(...orderKeys(shares, NEWEST))
      .limit(page.limit + 1)
      .all();
    live.push(...(await withEntries(ownerDb, rows)));
    if (live.length > page.limit || rows.length <= page.limit) break;
    after = rows.at(-1)!.id;
  }
  return pageOf(live, page.limit);
}

export async function listOwned(
  directory: Db,
  ownerDb: OwnerDb,
  ownerId: string,
  accountId: string | undefined,
  page: PageParams,
) {
  const scope = (t: typeof shares) =>
    and(eq(t.ownerId, ownerId), accountId ? eq(t.accountId, accountId) : undefined);
  return livePage(directory, ownerDb, scope, undefined, page);
}

/**
 * Shares a user may see as recipient: bound to them, or still pending for their email. Revoked,
 * expired and shares of deleted entries are left out, so they give no access.
 */
export async function listReceived(
  directory: Db,
  ownerDb: OwnerDb,
  userId: string,
  email: string | null,
  now: string,
  accountId: string | undefined,
  page: PageParams,
) {
  // The scope leaves out the revoked and expiry filters, so a share bound to the caller that was
  // revoked or expired since the last page still marks a position.
  const scope = (t: typeof shares) =>
    and(
      recipientMatch(userId, email, t),
      ne(t.ownerId, userId),
      accountId ? eq(t.accountId, accountId) : undefined,
    );
  return livePage(
    directory,
    ownerDb,
    scope,
    and(ne(shares.status, "revoked"), unexpired(now)),
    page,
  );
}

/**
 * The sharers' emails, as their sharing keys were registered (every owner who shares from a client
 * has one: it wraps the item key), so a recipient's vault can say who shared an entry.
 */
export async function ownerEmails(directory: Db, ownerIds: string[]): Promise<Map<string, string>> {
  const ids = [...new Set(ownerIds)];
  if (!ids.length) return new Map();
  const rows = await directory
    .select({ userId: sharingKeys.userId, email: sharingKeys.email })
    .from(sharingKeys)
    .where(inArray(sharingKeys.userId, ids))
    .all();
  return new Map(rows.map((r) => [r.userId, r.email]));
}

function recipientMatch(userId: string, email: string | null, t: typeof shares = shares) {
  const bound = eq(t.recipientId, userId);
  if (!email) return bound;
  return or(
    bound,
    and(isNull(t.recipientId), eq(t.status, "pending"), eq(t.recipientEmail, email)),
  )!;
}

async function one(ownerDb: OwnerDb, row: ShareRow | undefined) {
  return row ? (await withEntries(ownerDb, [row]))[0] : undefined;
}

export async function findOwned(
  directory: Db,
  ownerDb: OwnerDb,
  ownerId: string,
  id: string,
): Promise<ShareWithAccount | undefined> {
  return one(
    ownerDb,
    await directory
      .select()
      .from(shares)
      .where(and(eq(shares.id, id), eq(shares.ownerId, ownerId)))
      .get(),
  );
}

export async function findReceived(
  directory: Db,
  ownerDb: OwnerDb,
  userId: string,
  email: string | null,
  id: string,
  now: string,
): Promise<ShareWithAccount | undefined> {
  const row = await directory
    .select()
    .from(shares)
    .where(
      and(
        eq(shares.id, id),
        recipientMatch(userId, email),
        ne(shares.status, "revoked"),
        unexpired(now),
        ne(shares.ownerId, userId),
      ),
    )
    .get();
  return one(ownerDb, row);
}

export async function findLiveDuplicate(
  directory: Db,
  ownerId: string,
  accountId: string,
  email: string,
) {
  return directory
    .select({ id: shares.id })
    .from(shares)
    .where(
      and(
        eq(shares.ownerId, ownerId),
        eq(shares.accountId, accountId),
        eq(shares.recipientEmail, email),
        ne(shares.status, "revoked"),
      ),
    )
    .get();
}

/**
 * share_count on the entry: the directory's shares not revoked, counted after each change and
 * written to the owner's shard (docs/decisions/scale.md, "Scale: shards, a directory, many databases", "Shares and sharing keys in the directory").
 */
export async function refreshShareCount(
  directory: Db,
  ownerDb: Db,
  ownerId: string,
  accountId: string,
) {
  const counted = await directory
    .select({ n: sql<number>`count(*)` })
    .from(shares)
    .where(
      and(
        eq(shares.accountId, accountId),
        eq(shares.ownerId, ownerId),
        ne(shares.status, "revoked"),
      ),
    )
    .get();
  await shareCountStatement(ownerDb, ownerId, accountId, counted?.n ?? 0).run();
}

/** Inserts the share only while both limits hold, in one statement, so concurrent creates cannot overshoot. */
export async function insertUnderLimits(
  directory: Db,
  row: ShareRow,
  now: string,
  perEntry: number,
  perUser: number,
): Promise<boolean> {
  // drizzle's sqlite insert builder cannot guard an INSERT ... SELECT with a WHERE, so this one is raw.
  const inserted = await rawD1(directory)
    .prepare(
      `INSERT INTO shares (id, account_id, owner_id, recipient_id, recipient_email, status, permission, wrapped_vault_key_invite,
         invite_token_salt, expires_at, accepted_at, created_at, updated_at)
       SELECT ?1, ?2, ?3, NULL, ?4, 'pending', ?5, ?6, ?7, ?8, NULL, ?9, ?9
       WHERE (SELECT count(*) FROM shares WHERE account_id = ?2 AND owner_id = ?3
                AND status <> 'revoked' AND (expires_at IS NULL OR expires_at > ?10)) < ?11
         AND (SELECT count(*) FROM shares WHERE owner_id = ?3
                AND status <> 'revoked' AND (expires_at IS NULL OR expires_at > ?10)) < ?12`,
    )
    .bind(
      row.id,
      row.accountId,
      row.ownerId,
      row.recipientEmail,
      row.permission,
      row.wrappedVaultKeyInvite,
      row.inviteTokenSalt,
      row.expiresAt,
      row.createdAt,
      now,
      perEntry,
      perUser,
    )
    .run();
  return rowsChanged(inserted) > 0;
}

export async function ownerUpdate(
  directory: Db,
  share: ShareRow,
  set: Partial<ShareRow>,
): Promise<boolean> {
  const res = await directory
    .update(shares)
    .set(set)
    .where(
      and(
        eq(shares.id, share.id),
        eq(shares.ownerId, share.ownerId),
        eq(shares.status, share.status),
      ),
    )
    .run();
  return rowsChanged(res) > 0;
}

/** Binds the recipient; the WHERE repeats every condition so a concurrent revoke wins. */
export async function accept(
  directory: Db,
  id: string,
  userId: string,
  email: string,
  now: string,
): Promise<boolean> {
  const res = await directory
    .update(shares)
    .set({ status: "active", recipientId: userId, acceptedAt: now, updatedAt: now })
    .where(
      and(
        eq(shares.id, id),
        eq(shares.status, "pending"),
        isNull(shares.recipientId),
        eq(shares.recipientEmail, email),
        ne(shares.ownerId, userId),
        unexpired(now),
      ),
    )
    .run();
  return rowsChanged(res) > 0;
}

/** The share and its view log, in one batch of the directory. */
export async function remove(directory: Db, ownerId: string, share: ShareRow): Promise<boolean> {
  const [res] = await directory.batch([
    directory.delete(shares).where(and(eq(shares.id, share.id), eq(shares.ownerId, ownerId))),
    directory
      .delete(shareViewLogs)
      .where(and(eq(shareViewLogs.shareId, share.id), eq(shareViewLogs.ownerId, ownerId))),
  ]);
  return rowsChanged(res) > 0;
}

export function viewLogInsert(directory: Db, row: typeof shareViewLogs.$inferInsert) {
  return directory.insert(shareViewLogs).values(row);
}

/**
 * Updates the owner's entry, on the owner's shard, for a write recipient whose share the caller
 * has just read in the directory (no longer one guarded statement: docs/decisions/scale.md, "Scale: shards, a directory, many databases").
 */
export async function updateSharedEntry(
  ownerDb: Db,
  hubs: LiveSyncBindings,
  share: { ownerId: string; accountId: string },
  set: Partial<NewPasswordRow>,
): Promise<boolean> {
  // The owner's commit clock moves with the edit, so the owner's devices see it in a delta pull.
  const [advanced, res] = await ownerDb.batch([
    advanceClock(ownerDb, share.ownerId),
    sharedEntryUpdateStatement(ownerDb, share.ownerId, share.accountId, set),
  ]);
  const applied = rowsChanged(res) > 0;
  if (applied) announceClocks(hubs, advanced);
  return applied;
}

export async function getKey(directory: Db, userId: string) {
  return directory.select().from(sharingKeys).where(eq(sharingKeys.userId, userId)).get();
}

/** The first account to publish under an address holds it (putKey refuses any later one). */
export async function getKeyByEmail(directory: Db, email: string) {
  return directory
    .select()
    .from(sharingKeys)
    .where(eq(sharingKeys.email, email))
    .orderBy(sharingKeys.createdAt)
    .get();
}

/** The account that reads what is sent to `email` (the one holding its sharing key), if any. */
export async function accountOfAddress(directory: Db, email: string): Promise<string | undefined> {
  return (await getKeyByEmail(directory, email))?.userId;
}

/** The owner's view log of one of their shares, newest first. */
export async function viewLog(directory: Db, ownerId: string, shareId: string) {
  return directory
    .select({ action: shareViewLogs.action, createdAt: shareViewLogs.createdAt })
    .from(shareViewLogs)
    .where(and(eq(shareViewLogs.ownerId, ownerId), eq(shareViewLogs.shareId, shareId)))
    .orderBy(desc(shareViewLogs.createdAt))
    .limit(200)
    .all();
}

/**
 * Publishes or replaces the user's key, unless another account already holds one under this
 * address: one statement of the directory, so two accounts racing for the same address (on any
 * shards) cannot both get it. Returns undefined when the address belongs to another account.
 */
export async function putKey(
  directory: Db,
  userId: string,
  email: string,
  publicKey: string,
  now: string,
  wrappedPrivateKey: string | null,
) {
  const res = await directory.run(sql`
    INSERT INTO sharing_keys (user_id, email, public_key, wrapped_private_key, created_at, updated_at)
    SELECT ${userId}, ${email}, ${publicKey}, ${wrappedPrivateKey}, ${now}, ${now}
    WHERE NOT EXISTS (SELECT 1 FROM sharing_keys WHERE email = ${email} AND user_id <> ${userId})
    ON CONFLICT (user_id) DO UPDATE SET email = excluded.email, public_key = excluded.public_key,
      wrapped_private_key = excluded.wrapped_private_key, updated_at = excluded.updated_at`);
  if (rowsChanged(res) === 0) return undefined;
  return getKey(directory, userId);
}
