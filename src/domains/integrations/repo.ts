import { and, eq, inArray, lt } from "drizzle-orm";
import type { Db } from "../../db/client";
import { mailIntegrations, oauthStates, type MailIntegrationRow } from "../../db/schema";
import { rowsChanged } from "../../db/d1";

/** Integrations that hold mail; codehost and idp are sign-ins only. */
const MAILBOX_PROVIDERS = ["imap", "mailx", "maily"];

/** The user's active mailboxes, oldest first: what discovery scans and a reset reads from. */
export async function listActiveMailboxes(db: Db, userId: string): Promise<MailIntegrationRow[]> {
  return db
    .select()
    .from(mailIntegrations)
    .where(
      and(
        eq(mailIntegrations.userId, userId),
        eq(mailIntegrations.status, "active"),
        inArray(mailIntegrations.provider, MAILBOX_PROVIDERS),
      ),
    )
    .orderBy(mailIntegrations.connectedAt)
    .all();
}

export async function listIntegrations(db: Db, userId: string): Promise<MailIntegrationRow[]> {
  return db
    .select()
    .from(mailIntegrations)
    .where(eq(mailIntegrations.userId, userId))
    .orderBy(mailIntegrations.connectedAt)
    .all();
}

export async function findIntegration(
  db: Db,
  userId: string,
  provider: string,
): Promise<MailIntegrationRow | undefined> {
  return db
    .select()
    .from(mailIntegrations)
    .where(and(eq(mailIntegrations.userId, userId), eq(mailIntegrations.provider, provider)))
    .get();
}

/** Connect or reconnect: a reconnect replaces the secret and makes the integration active again. */
export async function upsertIntegration(db: Db, row: MailIntegrationRow): Promise<void> {
  await db
    .insert(mailIntegrations)
    .values(row)
    .onConflictDoUpdate({
      target: [mailIntegrations.userId, mailIntegrations.provider],
      set: {
        email: row.email,
        status: row.status,
        secret: row.secret,
        expiresAt: row.expiresAt,
        scopes: row.scopes,
        connectedAt: row.connectedAt,
        updatedAt: row.updatedAt,
      },
    })
    .run();
}

export async function updateIntegration(
  db: Db,
  userId: string,
  provider: string,
  set: Partial<MailIntegrationRow>,
): Promise<void> {
  await db
    .update(mailIntegrations)
    .set(set)
    .where(and(eq(mailIntegrations.userId, userId), eq(mailIntegrations.provider, provider)))
    .run();
}

export async function deleteIntegration(
  db: Db,
  userId: string,
  provider: string,
): Promise<boolean> {
  const r = await db
    .delete(mailIntegrations)
    .where(and(eq(mailIntegrations.userId, userId), eq(mailIntegrations.provider, provider)))
    .run();
  return rowsChanged(r) > 0;
}

export async function insertState(db: Db, row: typeof oauthStates.$inferInsert): Promise<void> {
  await db.batch([
    db.delete(oauthStates).where(lt(oauthStates.expiresAt, Date.now())),
    db.insert(oauthStates).values(row),
  ]);
}

/** Deletes and returns the pending authorization: a state is consumed exactly once. */
export async function takeState(db: Db, id: string) {
  return db.delete(oauthStates).where(eq(oauthStates.id, id)).returning().get();
}
