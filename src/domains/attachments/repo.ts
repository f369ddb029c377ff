import { and, eq, isNotNull, isNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import {
  attachments,
  notes,
  vaultItems,
  type AttachmentRow,
  type NewAttachmentRow,
} from "../../db/schema";
import type { RequestMeta } from "../../kernel/context";
import { randomId } from "../../lib/crypto";
import type { ParentType } from "./schema";
import { ownsEntry } from "../passwords";
import { rawD1, rowsChanged } from "../../db/d1";
import { keysetPage, type Order } from "../../db/keyset";
import type { Page, PageParams } from "../../kernel/pagination";

/** drizzle's D1 handle carries the raw binding; batches with conditional raw statements need it. */
const d1 = rawD1;

/** Notes and items are this domain's to read; an entry is the passwords domain's (it owns that table). */
const PARENTS = { note: notes, item: vaultItems } as const;

/**
 * Whether the caller owns the parent in its own collection. A soft-deleted parent still counts
 * when `includeDeleted` is set, so its attachments can be removed after it is gone.
 */
export async function ownsParent(
  db: Db,
  userId: string,
  type: ParentType,
  id: string,
  includeDeleted = false,
): Promise<boolean> {
  if (type === "password") return ownsEntry(db, userId, id, includeDeleted);
  const t = PARENTS[type];
  const owner = and(eq(t.userId, userId), eq(t.id, id));
  const row = await db
    .select({ id: t.id })
    .from(t)
    .where(includeDeleted ? owner : and(owner, isNull(t.deletedAt)))
    .get();
  return !!row;
}

const visible = (userId: string) =>
  and(eq(attachments.userId, userId), isNull(attachments.deletingAt));

/** Newest first; `created_at` never changes, so a page boundary never moves. */
const NEWEST: Order<typeof attachments> = { dir: "desc", keys: (t) => [t.createdAt] };

export async function listForParent(
  db: Db,
  userId: string,
  type: ParentType,
  parentId: string,
  page: PageParams,
): Promise<Page<AttachmentRow>> {
  // The parent is part of the scope: a cursor from another item's list is no position in this one.
  const scope = (t: typeof attachments) =>
    and(eq(t.userId, userId), eq(t.parentType, type), eq(t.parentId, parentId));
  return keysetPage(
    db,
    { table: attachments, order: NEWEST, scope, page },
    ({ after, orderBy, take }) =>
      db
        .select()
        .from(attachments)
        .where(and(scope(attachments), isNull(attachments.deletingAt), after))
        .orderBy(...orderBy)
        .limit(take)
        .all(),
  );
}

export async function findVisible(
  db: Db,
  userId: string,
  id: string,
): Promise<AttachmentRow | undefined> {
  return db
    .select()
    .from(attachments)
    .where(and(visible(userId), eq(attachments.id, id)))
    .get();
}

/** Includes attachments whose delete started but did not finish, so a retried DELETE completes it. */
export async function findAny(
  db: Db,
  userId: string,
  id: string,
): Promise<AttachmentRow | undefined> {
  return db
    .select()
    .from(attachments)
    .where(and(eq(attachments.userId, userId), eq(attachments.id, id)))
    .get();
}

export async function usedBytes(db: Db, userId: string): Promise<number> {
  const row = await db
    .select({ n: sql<number>`coalesce(sum(${attachments.size}), 0)` })
    .from(attachments)
    .where(eq(attachments.userId, userId))
    .get();
  return row?.n ?? 0;
}

export async function pendingDeletes(
  db: Db,
  userId: string,
  limit: number,
): Promise<AttachmentRow[]> {
  return db
    .select()
    .from(attachments)
    .where(and(eq(attachments.userId, userId), isNotNull(attachments.deletingAt)))
    .limit(limit)
    .all();
}

/** The audit insert as a raw statement that only fires while the attachment row exists, for D1 batches. */
function auditIfPresent(
  db: Db,
  row: Pick<AttachmentRow, "id" | "userId" | "parentType" | "parentId" | "size">,
  action: string,
  meta?: RequestMeta,
): D1PreparedStatement {
  const details = JSON.stringify({
    parent_type: row.parentType,
    parent_id: row.parentId,
    size: row.size,
  });
  return d1(db)
    .prepare(
      `INSERT INTO audit_events (id, user_id, action, target_type, target_id, ip, user_agent, device, details, created_at)
       SELECT ?1, ?2, ?3, 'attachment', ?4, ?5, ?6, ?7, ?8, ?9
       WHERE EXISTS (SELECT 1 FROM attachments WHERE id = ?4 AND user_id = ?2)`,
    )
    .bind(
      randomId(),
      row.userId,
      action,
      row.id,
      meta?.ip ?? null,
      meta?.userAgent ?? null,
      meta?.device ?? null,
      details,
      new Date().toISOString(),
    );
}

/**
 * Writes the metadata and its audit event in one transaction, and only while the user's stored
 * bytes plus this file stay within the quota: the check and the insert are one statement, so
 * concurrent uploads cannot overshoot it. Returns false when the quota refused it.
 */
export async function insertWithinQuota(
  db: Db,
  row: NewAttachmentRow & { userId: string; size: number },
  quota: number,
  meta: RequestMeta,
): Promise<boolean> {
  const insert = d1(db)
    .prepare(
      `INSERT INTO attachments (id, user_id, parent_type, parent_id, size, r2_key, wrapped_file_key, encrypted_filename,
         encrypted_mime_type, created_at)
       SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10
       WHERE (SELECT coalesce(sum(size), 0) FROM attachments WHERE user_id = ?2) + ?5 <= ?11`,
    )
    .bind(
      row.id,
      row.userId,
      row.parentType,
      row.parentId,
      row.size,
      row.r2Key,
      JSON.stringify(row.wrappedFileKey),
      JSON.stringify(row.encryptedFilename),
      JSON.stringify(row.encryptedMimeType),
      row.createdAt,
      quota,
    );
  const [inserted] = await d1(db).batch([
    insert,
    auditIfPresent(db, row as AttachmentRow, "attachment.upload", meta),
  ]);
  return rowsChanged(inserted) > 0;
}

export async function markDeleting(db: Db, userId: string, id: string, at: string): Promise<void> {
  await db
    .update(attachments)
    .set({ deletingAt: at })
    .where(
      and(eq(attachments.userId, userId), eq(attachments.id, id), isNull(attachments.deletingAt)),
    )
    .run();
}

/** The last step of a delete: the audit event and the row go together. */
export async function finishDelete(db: Db, row: AttachmentRow, meta?: RequestMeta): Promise<void> {
  await d1(db).batch([
    auditIfPresent(db, row, "attachment.delete", meta),
    d1(db)
      .prepare("DELETE FROM attachments WHERE id = ?1 AND user_id = ?2")
      .bind(row.id, row.userId),
  ]);
}
