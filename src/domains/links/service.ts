import type { Db } from "../../db/client";
import type { SecureLinkRow } from "../../db/schema";
import { AppError, ErrorCode, notFound } from "../../lib/errors";
import { randomToken, sha256Hex } from "../../lib/crypto";
import { logJson } from "../../lib/log";
import { fromBase64 } from "../../kernel/base64";
import { decodeBase64, decodedLength, jsonAroundBase64 } from "../attachments";
import * as repo from "./repo";
import { codeHash, codeProblem, recipientHashes } from "./recipients";
import {
  MAX_CODE_ATTEMPTS,
  MAX_FAILED_ATTEMPTS,
  MAX_FAILED_CODES,
  type CreateLinkInput,
} from "./schema";
import { gone, stateOf } from "./state";

export { gone, stateOf };

/** The quotas, and the server secret that keys recipients' and codes' hashes. */
export type LinkLimits = { maxOpen: number; quotaBytes: number; secret: string };

/** Where the stores live for one request: the owner's shard, the directory, the bucket. */
export type LinkStores = { db: Db; directory: Db; bucket: R2Bucket };

export function toView(row: SecureLinkRow) {
  return {
    id: row.id,
    kind: row.kind,
    size: row.size,
    state: stateOf(row),
    max_views: row.maxViews,
    views_used: row.viewsUsed,
    expires_at: row.expiresAt,
    last_opened_at: row.lastOpenedAt,
    created_at: row.createdAt,
    has_passphrase: row.passphraseVerifierHash !== null,
    hide_sender: row.senderEmail === null,
    recipients: row.recipientCount,
    label: row.encryptedLabel ?? null,
  };
}

/** What an opener sees before asking for the content: enough to ask for a passphrase, never the content. */
export function toPublic(row: SecureLinkRow) {
  const state = stateOf(row);
  return {
    id: row.id,
    kind: row.kind,
    size: row.size,
    state,
    expires_at: row.expiresAt,
    views_left: Math.max(0, row.maxViews - row.viewsUsed),
    sender_email: row.senderEmail,
    passphrase: row.passphraseSalt
      ? {
          salt: row.passphraseSalt,
          attempts_left: Math.max(0, MAX_FAILED_ATTEMPTS - row.failedAttempts),
        }
      : null,
    recipients_only: row.recipientHashes !== null,
  };
}

/** SHA-256 of the verifier's bytes: a stolen table gives no verifier to replay. */
const verifierHash = async (b64: string) => sha256Hex(fromBase64(b64));

export const r2KeyOf = (ownerId: string, id: string) => `links/${ownerId}/${id}`;

export class LinkService {
  constructor(
    private readonly stores: LinkStores,
    private readonly limits: LinkLimits,
  ) {}

  /**
   * Pointer first, then the bytes, then the row within the quotas; anything that fails takes the
   * earlier steps back, so no bytes lie in R2 without a row and no row points at nothing.
   */
  async create(
    owner: { id: string; email?: string },
    input: CreateLinkInput,
  ): Promise<SecureLinkRow> {
    const { db, directory, bucket } = this.stores;
    const now = new Date();
    const id = randomToken(16);
    const size = decodedLength(input.content);
    const row: SecureLinkRow = {
      id,
      ownerId: owner.id,
      kind: input.kind,
      size,
      r2Key: r2KeyOf(owner.id, id),
      encryptedLabel: input.label ?? null,
      senderEmail: input.hide_sender ? null : (owner.email ?? null),
      maxViews: input.max_views,
      viewsUsed: 0,
      expiresAt: new Date(now.getTime() + input.expires_in_seconds * 1000).toISOString(),
      passphraseSalt: input.passphrase?.salt ?? null,
      passphraseVerifierHash: input.passphrase
        ? await verifierHash(input.passphrase.verifier)
        : null,
      failedAttempts: 0,
      failedCodes: 0,
      revokedAt: null,
      lastOpenedAt: null,
      contentPurgedAt: null,
      createdAt: now.toISOString(),
      recipientHashes: input.recipients
        ? await recipientHashes(this.limits.secret, id, input.recipients)
        : null,
      recipientCount: 0,
      lastCodeId: null,
    };
    row.recipientCount = row.recipientHashes?.length ?? 0;
    await repo.point(directory, row);
    let stored = false;
    try {
      await bucket.put(row.r2Key, decodeBase64(input.content, size));
      stored = await repo.insertWithinQuota(db, row, this.limits.maxOpen, this.limits.quotaBytes);
    } finally {
      if (!stored) await this.undoCreate(row);
    }
    if (!stored) {
      const used = await repo.usage(db, owner.id);
      throw new AppError(ErrorCode.UNPROCESSABLE, "Secure link quota exceeded", {
        extra: {
          open: used.open,
          max_open: this.limits.maxOpen,
          bytes: used.bytes,
          quota_bytes: this.limits.quotaBytes,
        },
      });
    }
    return row;
  }

  private async undoCreate(row: SecureLinkRow) {
    try {
      await this.stores.bucket.delete(row.r2Key);
      await repo.unpoint(this.stores.directory, row.id);
    } catch {
      logJson("error", "secure link create could not be taken back");
    }
  }

  async list(ownerId: string) {
    const rows = await repo.listOwned(this.stores.db, ownerId, 200);
    const used = await repo.usage(this.stores.db, ownerId);
    return {
      links: rows.map(toView),
      usage: {
        open: used.open,
        max_open: this.limits.maxOpen,
        bytes: used.bytes,
        quota_bytes: this.limits.quotaBytes,
      },
    };
  }

  /** Revoking removes the ciphertext at once: the owner wants it gone, not merely unreachable. */
  async revoke(ownerId: string, id: string): Promise<SecureLinkRow> {
    const { db, bucket } = this.stores;
    const row = await repo.findOwned(db, ownerId, id);
    if (!row) throw notFound("Secure link");
    const at = new Date().toISOString();
    await repo.revoke(db, ownerId, id, at);
    if (!row.contentPurgedAt) {
      await bucket.delete(row.r2Key);
      await repo.markPurged(db, [id], at);
    }
    return (await repo.findOwned(db, ownerId, id))!;
  }

  async meta(id: string) {
    return toPublic(await this.found(id));
  }

  async found(id: string): Promise<SecureLinkRow> {
    const row = await repo.findById(this.stores.db, id);
    if (!row) throw notFound("Secure link");
    return row;
  }

  /**
   * Counts the view and hands back the ciphertext in one answer. A wrong passphrase counts a
   * failure instead (and locks the link at MAX_FAILED_ATTEMPTS), never a view; so does a wrong
   * code of a recipients-only link, against its open attempt and the link (locked at MAX_FAILED_CODES).
   */
  async open(
    id: string,
    verifier: string | undefined,
    code?: { challenge: string; code: string },
  ): Promise<{ row: SecureLinkRow; body: ReadableStream<Uint8Array> }> {
    const { db, bucket } = this.stores;
    const hash = verifier ? await verifierHash(verifier) : null;
    const proof = code
      ? {
          challenge: code.challenge,
          hash: await codeHash(this.limits.secret, code.challenge, code.code),
        }
      : null;
    const counted = await repo.countView(
      db,
      id,
      hash,
      new Date().toISOString(),
      { passphrases: MAX_FAILED_ATTEMPTS, codes: MAX_FAILED_CODES, perAttempt: MAX_CODE_ATTEMPTS },
      proof,
    );
    if (!counted) throw await this.refusal(id, hash, code);
    const object = await bucket.get(counted.r2Key);
    if (!object) {
      logJson("error", "secure link counted without its content", { linkId: id });
      throw new AppError(ErrorCode.INTERNAL_ERROR, "Secure link content unavailable");
    }
    return { row: counted, body: object.body };
  }

  /** Why a view was not counted: the link's state, or a wrong (or missing) passphrase. */
  private async refusal(
    id: string,
    hash: string | null,
    code: { challenge: string; code: string } | undefined,
  ): Promise<AppError> {
    const row = await repo.findById(this.stores.db, id);
    if (!row) return notFound("Secure link");
    const state = stateOf(row);
    if (state !== "active") return gone(state);
    if (row.recipientHashes) {
      const problem = await codeProblem(this.stores.db, this.limits.secret, row, code);
      if (problem) return problem;
    }
    if (!row.passphraseVerifierHash)
      return new AppError(
        ErrorCode.SERVICE_UNAVAILABLE,
        "The link changed while it was opened; try again",
      );
    if (hash === null)
      return new AppError(ErrorCode.FORBIDDEN, "This link needs its passphrase", {
        extra: {
          reason: "passphrase_required",
          attempts_left: MAX_FAILED_ATTEMPTS - row.failedAttempts,
        },
      });
    const failures = await repo.countFailure(this.stores.db, id, MAX_FAILED_ATTEMPTS);
    if (failures === null) return gone("locked");
    const left = MAX_FAILED_ATTEMPTS - failures;
    if (left <= 0) return gone("locked");
    return new AppError(ErrorCode.FORBIDDEN, "Wrong passphrase", {
      extra: { reason: "wrong_passphrase", attempts_left: left },
    });
  }
}

/**
 * The answer of an open as a JSON document streamed like an attachment download: the link's facts
 * first, then the ciphertext base64-encoded as R2 yields it, so a 25 MB file is never held whole.
 */
export function deliveryStream(
  head: unknown,
  body: ReadableStream<Uint8Array>,
): ReadableStream<Uint8Array> {
  return jsonAroundBase64(`{"link":${JSON.stringify(head)},"content":"`, body, `"}`);
}
