import type { Db } from "../../db/client";
import type { AttachmentRow } from "../../db/schema";
import type { RequestMeta } from "../../kernel/context";
import type { PageParams } from "../../kernel/pagination";
import { randomId } from "../../lib/crypto";
import { AppError, ErrorCode, notFound } from "../../lib/errors";
import { decodeBase64, jsonAroundBase64 } from "./base64-stream";
import * as repo from "./repo";
import { decodedLength, type AttachmentView, type ParentType, type UploadInput } from "./schema";
import { logJson } from "../../lib/log";

/**
 * Points where a test can make a step fail, to prove that no blob or metadata is left dangling.
 * Production code never passes them.
 */
export type FaultInjection = {
  beforeMetadataWrite?: () => void | Promise<void>;
  beforeBlobDelete?: () => void | Promise<void>;
  beforeRowDelete?: () => void | Promise<void>;
};

const PENDING_BATCH = 20;

export function toAttachment(row: AttachmentRow): AttachmentView {
  return {
    id: row.id,
    parent_id: row.parentId,
    parent_type: row.parentType,
    size: row.size,
    created_at: row.createdAt,
    encrypted_filename: row.encryptedFilename,
    encrypted_mime_type: row.encryptedMimeType,
    wrapped_file_key: row.wrappedFileKey,
  };
}

export class AttachmentService {
  constructor(
    private readonly db: Db,
    private readonly bucket: R2Bucket,
    private readonly quotaBytes: number,
    private readonly faults: FaultInjection = {},
  ) {}

  private async requireParent(
    userId: string,
    type: ParentType,
    id: string,
    includeDeleted = false,
  ) {
    if (!(await repo.ownsParent(this.db, userId, type, id, includeDeleted)))
      throw notFound("Parent item");
  }

  /**
   * Validated input, parent ownership, quota, then the blob, then the metadata. If the metadata
   * write fails or the quota is found full at write time, the blob just stored is removed.
   */
  async upload(userId: string, input: UploadInput, meta: RequestMeta): Promise<AttachmentView> {
    await this.requireParent(userId, input.parent_type, input.parent_id);
    await this.finishPendingDeletes(userId);
    const size = decodedLength(input.encrypted_content);
    const used = await repo.usedBytes(this.db, userId);
    if (used + size > this.quotaBytes) throw this.quotaError(used);

    const id = randomId();
    const r2Key = `attachments/${userId}/${id}`;
    const row = {
      id,
      userId,
      parentType: input.parent_type,
      parentId: input.parent_id,
      size,
      r2Key,
      wrappedFileKey: input.wrapped_file_key,
      encryptedFilename: input.encrypted_filename,
      encryptedMimeType: input.encrypted_mime_type,
      createdAt: new Date().toISOString(),
      deletingAt: null,
    };
    await this.bucket.put(r2Key, decodeBase64(input.encrypted_content, size), {
      customMetadata: { userId, parentType: input.parent_type, parentId: input.parent_id },
    });
    let stored: boolean;
    try {
      await this.faults.beforeMetadataWrite?.();
      stored = await repo.insertWithinQuota(this.db, row, this.quotaBytes, meta);
    } catch (err) {
      await this.removeBlob(r2Key);
      throw err;
    }
    if (!stored) {
      await this.removeBlob(r2Key);
      throw this.quotaError(await repo.usedBytes(this.db, userId));
    }
    return toAttachment(row);
  }

  private quotaError(used: number) {
    return new AppError(ErrorCode.UNPROCESSABLE, "Attachment storage quota exceeded", {
      extra: { quota_bytes: this.quotaBytes, used_bytes: used },
    });
  }

  private async removeBlob(key: string) {
    try {
      await this.bucket.delete(key);
    } catch {
      logJson("error", "attachment blob could not be removed after a failed upload");
    }
  }

  async list(
    userId: string,
    type: ParentType,
    parentId: string,
    page: PageParams,
  ): Promise<{ attachments: AttachmentView[]; next_cursor: string | null }> {
    await this.requireParent(userId, type, parentId);
    await this.finishPendingDeletes(userId);
    const rows = await repo.listForParent(this.db, userId, type, parentId, page);
    return { attachments: rows.items.map(toAttachment), next_cursor: rows.next_cursor };
  }

  /** Bytes the caller's attachments take against the quota, so a client can show it before an upload. */
  async usage(userId: string): Promise<{ used: number; quota: number }> {
    return { used: await repo.usedBytes(this.db, userId), quota: this.quotaBytes };
  }

  /**
   * The JSON document of D8 streamed: the metadata first, then the R2 object base64-encoded as it
   * is read, so a 25 MB file is never held in the worker's memory as a whole.
   */
  async download(userId: string, id: string): Promise<ReadableStream<Uint8Array>> {
    const row = await repo.findVisible(this.db, userId, id);
    if (!row) throw notFound("Attachment");
    await this.requireParent(userId, row.parentType, row.parentId);
    const object = await this.bucket.get(row.r2Key);
    if (!object) {
      logJson("error", "attachment metadata without its blob", { attachmentId: id });
      throw new AppError(ErrorCode.INTERNAL_ERROR, "Attachment content unavailable");
    }
    const head = JSON.stringify({ ...toAttachment(row), wrapped_file_key: row.wrappedFileKey });
    return jsonAroundBase64(
      `{"attachment":${head.slice(0, -1)},"encrypted_content":"`,
      object.body,
      `"}}`,
    );
  }

  /**
   * Three steps that can each be retried: hide the attachment, remove the blob, then remove the
   * row with its audit event. A failure part-way leaves a hidden row that the retried DELETE, or
   * the user's next attachment request, finishes; never a row pointing at nothing that is shown,
   * and never a blob without a row.
   */
  async remove(userId: string, id: string, meta: RequestMeta): Promise<void> {
    const row = await repo.findAny(this.db, userId, id);
    if (!row) throw notFound("Attachment");
    await this.requireParent(userId, row.parentType, row.parentId, true);
    await repo.markDeleting(this.db, userId, id, new Date().toISOString());
    await this.completeDelete(row, meta);
    await this.finishPendingDeletes(userId);
  }

  private async completeDelete(row: AttachmentRow, meta?: RequestMeta) {
    await this.faults.beforeBlobDelete?.();
    await this.bucket.delete(row.r2Key);
    await this.faults.beforeRowDelete?.();
    await repo.finishDelete(this.db, row, meta);
  }

  /** Completes deletes a failure interrupted; a still-failing one stays hidden for the next try. */
  async finishPendingDeletes(userId: string): Promise<void> {
    for (const row of await repo.pendingDeletes(this.db, userId, PENDING_BATCH)) {
      try {
        await this.completeDelete(row);
      } catch {
        logJson("error", "pending attachment delete still failing; will retry", {
          attachmentId: row.id,
        });
      }
    }
  }
}
