import { announceTopic } from "../../db/clock-announce";
import { dbFor, directoryDb, type Db, type DbBindings } from "../../db/client";
import type { ShareRow } from "../../db/schema";
import type { AuthUser, RequestMeta } from "../../kernel/context";
import type { PageParams } from "../../kernel/pagination";
import { randomId } from "../../lib/crypto";
import {
  AppError,
  ErrorCode,
  conflict,
  forbidden,
  notFound,
  validationError,
} from "../../lib/errors";
import type { Config } from "../../env";
import { errorName, logJson } from "../../lib/log";
import { notificationInsert, notify } from "../notifications";
import { entryPatch, findLive } from "../passwords";
import * as repo from "./repo";
import type { CreateShareInput, PatchShareInput, Share, UpdateSharedAccountInput } from "./schema";

export const MAX_SHARES_PER_ENTRY = 10;
export const MAX_ACTIVE_SHARES_PER_USER = 50;

const emailOf = (user: AuthUser) => user.email?.trim().toLowerCase() || null;

function toShare(row: repo.ShareWithAccount, view: "owned" | "received"): Share {
  const share: Share = {
    id: row.id,
    account_id: row.accountId,
    owner_id: row.ownerId,
    recipient_id: row.recipientId,
    recipient_email: row.recipientEmail,
    status: row.status,
    permission: row.permission,
    expires_at: row.expiresAt,
    accepted_at: row.acceptedAt,
    created_at: row.createdAt,
    account: {
      id: row.accountId,
      name: row.accountName,
      website: row.accountWebsite,
      url: row.accountUrl,
    },
  };
  // Only an accepted share hands over ciphertext, and only to its recipient: the item key wrapped
  // for them by the owner's client, and the entry's current encrypted_data.
  if (view === "received" && row.status === "active") {
    share.invite_token_salt = row.inviteTokenSalt;
    share.account = {
      ...share.account!,
      encrypted_data: row.accountEncryptedData,
      wrapped_item_key: row.wrappedVaultKeyInvite,
    };
  }
  return share;
}

/**
 * Shares and sharing keys are read and written in the directory; a shared entry on its owner's
 * shard, and a notification on its reader's (docs/decisions/scale.md, "Scale: shards, a directory, many databases").
 */
export class SharingService {
  private readonly directory: Db;
  private readonly ownerDb: repo.OwnerDb;

  constructor(
    private readonly env: DbBindings,
    private readonly config?: Config,
  ) {
    this.directory = directoryDb(env);
    this.ownerDb = (ownerId) => dbFor(env, ownerId);
  }

  /**
   * After a committed change: the owner's and the recipient's devices refresh their shares (live
   * sync's `shares` topic). A pending share names its recipient by address; the account that
   * published the sharing key for it is the one that reads it (putKey keeps that unique).
   */
  private async tell(share: {
    ownerId: string;
    recipientId: string | null;
    recipientEmail: string;
  }) {
    const recipient =
      share.recipientId ?? (await repo.getKeyByEmail(this.directory, share.recipientEmail))?.userId;
    announceTopic(this.env, [share.ownerId, recipient], "shares");
    return recipient;
  }

  /**
   * A new share waits for its recipient's Accept: they hear of it in the app's notifications (and by
   * Web Push where they subscribed), with the Sharing page, where Accept is, as its action. The
   * share is committed already: a notice that cannot be written is logged, never undoes it.
   */
  private async announceShare(
    recipientId: string,
    owner: AuthUser,
    share: ShareRow,
    entryName: string,
  ) {
    const from = emailOf(owner) ?? "Someone";
    try {
      await notify(
        this.ownerDb(recipientId),
        {
          userId: recipientId,
          type: "share_received",
          title: "An entry was shared with you",
          body: `${from} shared "${entryName}" with you (${share.permission === "write" ? "can edit" : "read-only"}). Accept it on the Sharing page to see it in your vault.`,
          color: "info",
          icon: "share",
          actionUrl: `/sharing?share=${share.id}`,
          actorId: isUuid(owner.id) ? owner.id : null,
          actorEmail: emailOf(owner),
          metadata: { share_id: share.id, account_id: share.accountId },
        },
        this.config,
      );
    } catch (err) {
      logJson("error", "sharing: notification not written", { error: errorName(err) });
    }
  }

  async create(user: AuthUser, input: CreateShareInput) {
    const now = new Date().toISOString();
    const entry = await findLive(this.ownerDb(user.id), user.id, input.accountId);
    if (!entry) throw notFound("Password entry");
    if (input.expiresAt && Date.parse(input.expiresAt) <= Date.now()) {
      throw validationError("expiresAt must be in the future", [
        { field: "expiresAt", message: "must be in the future" },
      ]);
    }
    if (input.recipientEmail === emailOf(user))
      throw conflict("You cannot share an entry with yourself");
    if (await repo.findLiveDuplicate(this.directory, user.id, entry.id, input.recipientEmail)) {
      throw conflict("This entry is already shared with that email");
    }
    const row: ShareRow = {
      id: randomId(),
      accountId: entry.id,
      ownerId: user.id,
      recipientId: null,
      recipientEmail: input.recipientEmail,
      status: "pending",
      permission: input.permission,
      wrappedVaultKeyInvite: input.wrapped_vault_key_invite ?? null,
      inviteTokenSalt: input.invite_token_salt ?? null,
      expiresAt: input.expiresAt ? new Date(input.expiresAt).toISOString() : null,
      acceptedAt: null,
      createdAt: now,
      updatedAt: now,
    };
    let inserted: boolean;
    try {
      inserted = await repo.insertUnderLimits(
        this.directory,
        row,
        now,
        MAX_SHARES_PER_ENTRY,
        MAX_ACTIVE_SHARES_PER_USER,
      );
    } catch (e) {
      if (String((e as Error).message).includes("UNIQUE"))
        throw conflict("This entry is already shared with that email");
      throw e;
    }
    if (!inserted) {
      throw new AppError(
        ErrorCode.RATE_LIMITED,
        `Share limits exceeded: at most ${MAX_SHARES_PER_ENTRY} per entry and ${MAX_ACTIVE_SHARES_PER_USER} active per user`,
        {
          headers: { "Retry-After": "60" },
        },
      );
    }
    await repo.refreshShareCount(this.directory, this.ownerDb(user.id), user.id, entry.id);
    const recipient = await this.tell(row);
    if (recipient) await this.announceShare(recipient, user, row, entry.name);
    return toShare(
      {
        ...row,
        accountName: entry.name,
        accountWebsite: entry.website,
        accountUrl: entry.url,
        accountEncryptedData: null,
      },
      "owned",
    );
  }

  async list(
    user: AuthUser,
    type: "owned" | "received",
    accountId: string | undefined,
    page: PageParams,
  ) {
    const now = new Date().toISOString();
    const [rows, key] = await Promise.all([
      type === "owned"
        ? repo.listOwned(this.directory, this.ownerDb, user.id, accountId, page)
        : repo.listReceived(
            this.directory,
            this.ownerDb,
            user.id,
            emailOf(user),
            now,
            accountId,
            page,
          ),
      repo.getKey(this.directory, user.id),
    ]);
    const shares = rows.items.map((r) => toShare(r, type));
    if (type === "received") {
      const emails = await repo.ownerEmails(
        this.directory,
        rows.items.map((r) => r.ownerId),
      );
      for (const s of shares) s.owner_email = emails.get(s.owner_id) ?? null;
    }
    return { shares, setup_required: !key, next_cursor: rows.next_cursor };
  }

  /** PATCH: the owner revokes or changes permission; the recipient accepts. Anyone else gets 404. */
  async patch(user: AuthUser, id: string, input: PatchShareInput) {
    const owned = await repo.findOwned(this.directory, this.ownerDb, user.id, id);
    if (owned) return toShare(await this.ownerPatch(owned, input), "owned");
    const email = emailOf(user);
    const now = new Date().toISOString();
    const received = await repo.findReceived(this.directory, this.ownerDb, user.id, email, id, now);
    if (!received) throw notFound("Share");
    if (input.permission !== undefined || input.status !== "active")
      throw forbidden("Only the owner can revoke a share or change its permission");
    if (received.status === "active") return toShare(received, "received");
    if (!email || !(await repo.accept(this.directory, id, user.id, email, now)))
      throw notFound("Share");
    const fresh = await repo.findReceived(this.directory, this.ownerDb, user.id, email, id, now);
    if (!fresh) throw notFound("Share");
    await this.tell(fresh);
    return toShare(fresh, "received");
  }

  private async ownerPatch(share: repo.ShareWithAccount, input: PatchShareInput) {
    if (input.status === "active") throw forbidden("Only the recipient can accept a share");
    if (share.status === "revoked")
      throw conflict("The share is revoked; create a new one instead");
    const now = new Date().toISOString();
    const set: Partial<ShareRow> = { updatedAt: now };
    if (input.permission) set.permission = input.permission;
    if (input.status === "revoked") set.status = "revoked";
    if (!(await repo.ownerUpdate(this.directory, share, set)))
      throw conflict("The share changed meanwhile; reload it");
    await repo.refreshShareCount(
      this.directory,
      this.ownerDb(share.ownerId),
      share.ownerId,
      share.accountId,
    );
    await this.tell(share);
    return { ...share, ...set };
  }

  async remove(user: AuthUser, id: string) {
    const share = await repo.findOwned(this.directory, this.ownerDb, user.id, id);
    if (!share || !(await repo.remove(this.directory, user.id, share))) throw notFound("Share");
    await repo.refreshShareCount(this.directory, this.ownerDb(user.id), user.id, share.accountId);
    await this.tell(share);
  }

  /** The recipient's view log; password_viewed tells the owner, password_copied is only recorded. */
  async logView(
    user: AuthUser,
    id: string,
    action: "password_viewed" | "password_copied",
    meta: RequestMeta,
  ) {
    const now = new Date().toISOString();
    const share = await repo.findReceived(
      this.directory,
      this.ownerDb,
      user.id,
      emailOf(user),
      id,
      now,
    );
    if (!share || share.status !== "active" || share.recipientId !== user.id)
      throw notFound("Share");
    await repo.viewLogInsert(this.directory, {
      id: randomId(),
      shareId: share.id,
      ownerId: share.ownerId,
      recipientId: user.id,
      action,
      ip: meta.ip,
      userAgent: meta.userAgent,
      createdAt: now,
    });
    // The log first, the owner's notification (on the owner's shard) second: a crash between
    // leaves a view in the log the owner can read, never a notification of a view not logged.
    if (action === "password_viewed") {
      const who = user.email ?? "A recipient";
      await notificationInsert(this.ownerDb(share.ownerId), {
        userId: share.ownerId,
        type: "share_viewed",
        title: "Shared password viewed",
        body: `${who} viewed the password of "${share.accountName}".`,
        actorId: isUuid(user.id) ? user.id : null,
        actorEmail: user.email ?? null,
        metadata: { share_id: share.id, account_id: share.accountId, action },
      }).query;
    }
    return { success: true as const, action, logged_at: now };
  }

  async updateSharedAccount(user: AuthUser, id: string, input: UpdateSharedAccountInput) {
    const now = new Date().toISOString();
    const share = await repo.findReceived(
      this.directory,
      this.ownerDb,
      user.id,
      emailOf(user),
      id,
      now,
    );
    if (!share || share.status !== "active" || share.recipientId !== user.id)
      throw notFound("Share");
    if (share.permission !== "write") throw forbidden("This share is read-only");
    const set = entryPatch(
      input,
      { website: share.accountWebsite, url: share.accountUrl },
      { updatedAt: now },
    );
    if (!(await repo.updateSharedEntry(this.ownerDb(share.ownerId), this.env, share, set))) {
      throw forbidden("The share no longer grants write access");
    }
    return { id: share.accountId, updated_at: now };
  }

  async putKey(user: AuthUser, publicKey: object, wrappedPrivateKey?: string) {
    const email = emailOf(user);
    if (!email)
      throw new AppError(
        ErrorCode.UNPROCESSABLE,
        "Your sign-in token carries no email; a sharing key needs one",
      );
    const row = await repo.putKey(
      this.directory,
      user.id,
      email,
      JSON.stringify(publicKey),
      new Date().toISOString(),
      wrappedPrivateKey ?? null,
    );
    if (!row) throw conflict("Another account already published a sharing key for this email");
    return { ...toKey(row!), wrappedPrivateKey: row!.wrappedPrivateKey };
  }

  /** The caller's own key comes with its wrapped private half (for their other devices); another's never. */
  async getKey(user: AuthUser, email?: string) {
    const row = email
      ? await repo.getKeyByEmail(this.directory, email)
      : await repo.getKey(this.directory, user.id);
    if (!row) throw notFound("Sharing key");
    return email ? toKey(row) : { ...toKey(row), wrappedPrivateKey: row.wrappedPrivateKey };
  }

  async views(user: AuthUser, id: string) {
    const share = isUuid(id)
      ? await repo.findOwned(this.directory, this.ownerDb, user.id, id)
      : undefined;
    if (!share) throw notFound("Share");
    return {
      views: (await repo.viewLog(this.directory, user.id, id)).map((v) => ({
        action: v.action,
        logged_at: v.createdAt,
      })),
    };
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const isUuid = (s: string) => UUID.test(s);

function toKey(row: { publicKey: string; createdAt: string; updatedAt: string }) {
  return {
    publicKey: JSON.parse(row.publicKey) as { kty: "EC"; crv: "P-256"; x: string; y: string },
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}
