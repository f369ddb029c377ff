import type { RecoveryTimers } from "../../../durable-objects/recovery-timer";
import type { EmergencyContactRow } from "../../db/schema";
import type { AuthUser, RequestMeta } from "../../kernel/context";
import { pageOf, type PageParams } from "../../kernel/pagination";
import { badCursor } from "../../db/keyset";
import { randomId, randomToken, sha256Hex } from "../../lib/crypto";
import { AppError, ErrorCode, conflict, forbidden, notFound } from "../../lib/errors";
import { sendQuietly } from "../notifications";
import { auditInsert, type AuditInput } from "../audit";
import { notify } from "../notifications";
import { announceInvitation } from "./announce";
import { liveEntries } from "../sync";
import * as repo from "./repo";
import type { AddInput } from "./schema";
import {
  announceGrant,
  INVITE_TTL_MS,
  RETRIEVAL_WINDOW_MS,
  tickContact,
  type EmergencyCtx,
} from "./timer";
import { rowsChanged } from "../../db/d1";
import { inviteMail, requestedBody, requestedMail } from "./mails";

const DAY_MS = 24 * 60 * 60 * 1000;

const HOUR_MS = 60 * 60 * 1000;
const iso = (t: number) => new Date(t).toISOString();
const lower = (e: string | undefined) => (e ? e.trim().toLowerCase() : null);

/** DECISIONS D8's contact: never the token hash, the wrapped key or the salt. */
export function toContact(r: EmergencyContactRow) {
  return {
    id: r.id,
    owner_id: r.ownerId,
    owner_email: r.ownerEmail,
    contact_email: r.contactEmail,
    contact_user_id: r.contactUserId,
    status: r.status,
    wait_hours: r.waitHours,
    requested_at: r.requestedAt,
    grant_at: r.grantAt,
    granted_at: r.grantedAt,
    expires_at: r.expiresAt,
    created_at: r.createdAt,
  };
}

export class EmergencyService {
  constructor(
    private readonly ctx: EmergencyCtx,
    private readonly timers: RecoveryTimers,
  ) {}

  private get directory() {
    return this.ctx.directory;
  }

  /**
   * A record's change, then the caller's audit event on the caller's shard (docs/decisions/scale.md, "Scale: shards, a directory, many databases": the record is
   * in the directory, so they are no longer one batch). The event follows the change it reports, so
   * a crash between loses that event, never logs a change that was not made. False when a guard in
   * the change's WHERE did not hold (nothing is logged then).
   */
  private async changeThenAudit(
    change: Promise<{ meta: { changes?: number | null } }>,
    event: AuditInput,
  ): Promise<boolean> {
    if (rowsChanged(await change) === 0) return false;
    await auditInsert(this.ctx.dbOf(event.userId), event);
    return true;
  }

  /**
   * One page of the sequence `as_owner` then `as_contact` (docs/decisions/platform.md, "Cursor pagination"):
   * a page may end inside either list or hold the end of one and the start of the other.
   */
  async list(user: AuthUser, page: PageParams, now = Date.now()) {
    const party: repo.Party = { id: user.id, email: lower(user.email), now: iso(now) };
    const side = page.cursor ? await repo.cursorSide(this.directory, party, page.cursor) : "owner";
    if (!side) throw badCursor();
    const take = page.limit + 1;
    const [owned, contacted] =
      side === "owner"
        ? await this.directory.batch([
            repo.listSide(this.directory, party, "owner", page.cursor, take),
            repo.listSide(this.directory, party, "contact", undefined, take),
          ])
        : [[], await repo.listSide(this.directory, party, "contact", page.cursor, take)];
    const rows = [
      ...owned.map((row) => ({ id: row.id, row, side: "owner" })),
      ...contacted.map((row) => ({ id: row.id, row, side: "contact" })),
    ];
    const { items, next_cursor } = pageOf(rows, page.limit);
    const on = (s: repo.Side) => items.filter((i) => i.side === s).map((i) => toContact(i.row));
    return { as_owner: on("owner"), as_contact: on("contact"), next_cursor };
  }

  async add(user: AuthUser, input: AddInput, meta: RequestMeta, now = Date.now()) {
    const email = lower(input.email)!;
    if (email === lower(user.email))
      throw conflict("You cannot name yourself as an emergency contact");
    if (await repo.findLiveByEmail(this.directory, user.id, email))
      throw conflict("That address is already an emergency contact");
    const token = randomToken(32);
    const row: EmergencyContactRow = {
      id: randomId(),
      ownerId: user.id,
      ownerEmail: lower(user.email),
      contactEmail: email,
      contactUserId: null,
      status: "pending_invite",
      waitHours: input.wait_hours,
      inviteTokenHash: await sha256Hex(token),
      inviteExpiresAt: iso(now + INVITE_TTL_MS),
      wrappedAccessKey: input.wrapped_access_key,
      inviteSalt: input.invite_salt,
      requestedAt: null,
      grantAt: null,
      grantedAt: null,
      expiresAt: null,
      vaultReadNotifiedAt: null,
      createdAt: iso(now),
      updatedAt: iso(now),
    };
    await this.changeThenAudit(repo.insert(this.directory, row).run(), {
      userId: user.id,
      action: "emergency_contact.add",
      targetType: "emergency_contact",
      targetId: row.id,
      meta,
      details: { email, wait_hours: row.waitHours },
    });
    await sendQuietly(
      this.ctx.mailer,
      inviteMail(
        this.ctx.appOrigin,
        email,
        user.email ?? null,
        row.waitHours,
        INVITE_TTL_MS / DAY_MS,
        row.inviteExpiresAt,
        token,
      ),
    );
    await announceInvitation(this.ctx, row, user.id);
    return toContact(row);
  }

  /**
   * Accepts by the mailed token, or by the invitation's id when it is addressed to the caller's
   * verified email (D21: the invitation found in the app). Someone else's id is simply not found.
   */
  async accept(
    user: AuthUser,
    by: { token: string } | { contact_id: string },
    meta: RequestMeta,
    now = Date.now(),
  ) {
    const found =
      "token" in by
        ? await repo.findByTokenHash(this.directory, await sha256Hex(by.token))
        : await repo.findById(this.directory, by.contact_id);
    const mine =
      found &&
      ("token" in by ||
        found.contactEmail === lower(user.email) ||
        found.contactUserId === user.id);
    const row = mine ? found : undefined;
    if (!row || row.status === "revoked") throw notFound("Invitation");
    if (row.ownerId === user.id) throw forbidden("You cannot accept your own invitation");
    if (row.status !== "pending_invite") {
      if (row.contactUserId === user.id) throw conflict("Invitation already accepted");
      throw notFound("Invitation");
    }
    if (now >= Date.parse(row.inviteExpiresAt))
      throw new AppError(ErrorCode.GONE, "Invitation expired");
    if (lower(user.email) !== row.contactEmail)
      throw forbidden("The invitation was sent to another address");
    const set = { status: "active" as const, contactUserId: user.id, updatedAt: iso(now) };
    const accepted = await this.changeThenAudit(
      repo.transition(this.directory, row.id, ["pending_invite"], set).run(),
      {
        userId: user.id,
        action: "emergency_contact.accept",
        targetType: "emergency_contact",
        targetId: row.id,
        meta,
        details: { owner_id: row.ownerId },
      },
    );
    if (!accepted) throw conflict("Invitation already answered");
    this.ctx.tell({ ...row, ...set });
    await notify(this.ctx.dbOf(row.ownerId), {
      userId: row.ownerId,
      type: "emergency_contact_accepted",
      title: "Emergency contact accepted",
      body: `${row.contactEmail} accepted your emergency contact invitation.`,
      actionUrl: "/emergency",
      actorId: user.id,
      actorEmail: row.contactEmail,
      metadata: { contact_id: row.id },
    });
    return toContact({ ...row, ...set });
  }

  /** Contact-only: the owner gets 403 (they can see the record), anyone else 404. */
  private async asContact(user: AuthUser, id: string) {
    const row = await repo.findForParty(this.directory, user.id, id);
    if (!row) throw notFound("Emergency contact");
    if (row.contactUserId !== user.id) throw forbidden("Only the emergency contact may do this");
    return row;
  }

  /** Owner-only: the contact gets 403, anyone else 404. */
  private async asOwner(user: AuthUser, id: string) {
    const row = await repo.findForParty(this.directory, user.id, id);
    if (!row) throw notFound("Emergency contact");
    if (row.ownerId !== user.id) throw forbidden("Only the vault owner may do this");
    return row;
  }

  async request(user: AuthUser, id: string, meta: RequestMeta, now = Date.now()) {
    const row = await this.asContact(user, id);
    if (row.status !== "active")
      throw conflict(`Access cannot be requested while the record is ${row.status}`);
    const grantAt = now + row.waitHours * HOUR_MS;
    const set = {
      status: "access_requested" as const,
      requestedAt: iso(now),
      grantAt: iso(grantAt),
      grantedAt: null,
      expiresAt: null,
      updatedAt: iso(now),
    };
    await this.timers.scheduleEmergency(row.id, row.ownerId, grantAt);
    const requested = await this.changeThenAudit(
      repo.transition(this.directory, row.id, ["active"], set).run(),
      {
        userId: user.id,
        action: "emergency_access.request",
        targetType: "emergency_contact",
        targetId: row.id,
        meta,
        details: { owner_id: row.ownerId, wait_hours: row.waitHours, grant_at: set.grantAt },
      },
    );
    if (!requested) throw conflict("The record changed; reload it");
    this.ctx.tell(row);
    const body = requestedBody(row.contactEmail, set.grantAt);
    await notify(
      this.ctx.dbOf(row.ownerId),
      {
        userId: row.ownerId,
        type: "emergency_access_requested",
        title: "Emergency access requested",
        body,
        color: "warning",
        actionUrl: "/emergency",
        actorId: user.id,
        actorEmail: row.contactEmail,
        metadata: { contact_id: row.id, grant_at: set.grantAt, wait_hours: row.waitHours },
      },
      this.ctx.config,
    );
    if (row.ownerEmail)
      await sendQuietly(
        this.ctx.mailer,
        requestedMail(this.ctx.appOrigin, row.ownerEmail, row.contactEmail, set.grantAt),
      );
    return toContact({ ...row, ...set });
  }

  async respond(
    user: AuthUser,
    id: string,
    action: "approve" | "deny",
    meta: RequestMeta,
    now = Date.now(),
  ) {
    const row = await this.asOwner(user, id);
    if (row.status !== "access_requested")
      throw conflict(`There is no pending request (record is ${row.status})`);
    const set =
      action === "approve"
        ? {
            status: "access_granted" as const,
            grantedAt: iso(now),
            expiresAt: iso(now + RETRIEVAL_WINDOW_MS),
            updatedAt: iso(now),
          }
        : { status: "access_denied" as const, updatedAt: iso(now) };
    if (action === "approve")
      await this.timers.scheduleEmergency(row.id, row.ownerId, now + RETRIEVAL_WINDOW_MS);
    const answered = await this.changeThenAudit(
      repo.updateOwned(this.directory, user.id, row.id, ["access_requested"], set).run(),
      {
        userId: user.id,
        action: `emergency_access.${action}`,
        targetType: "emergency_contact",
        targetId: row.id,
        meta,
        details: { contact_id: row.id, email: row.contactEmail },
      },
    );
    if (!answered) throw conflict("The request was answered already");
    const updated = { ...row, ...set };
    if (action === "approve") await announceGrant(this.ctx, updated, updated.expiresAt!, false);
    else {
      this.ctx.tell(row);
      await this.timers.cancelEmergency(row.id);
      if (row.contactUserId) {
        await notify(this.ctx.dbOf(row.contactUserId), {
          userId: row.contactUserId,
          type: "emergency_access_denied",
          title: "Emergency access denied",
          body: "The vault owner denied your emergency access request.",
          color: "error",
          actionUrl: "/emergency",
          actorId: user.id,
          metadata: { contact_id: row.id },
        });
      }
    }
    return toContact(updated);
  }

  async updateWait(
    user: AuthUser,
    id: string,
    waitHours: number,
    meta: RequestMeta,
    now = Date.now(),
  ) {
    const row = await this.asOwner(user, id);
    if (row.status === "revoked") throw conflict("The record is revoked");
    const set = { waitHours, updatedAt: iso(now) };
    const live = [
      "pending_invite",
      "active",
      "access_requested",
      "access_granted",
      "access_denied",
      "access_expired",
    ] as const;
    const updated = await this.changeThenAudit(
      repo.updateOwned(this.directory, user.id, row.id, [...live], set).run(),
      {
        userId: user.id,
        action: "emergency_contact.update",
        targetType: "emergency_contact",
        targetId: row.id,
        meta,
        details: { wait_hours: waitHours, previous_wait_hours: row.waitHours },
      },
    );
    if (!updated) throw conflict("The record is revoked");
    return toContact({ ...row, ...set });
  }

  async revoke(user: AuthUser, id: string, meta: RequestMeta, now = Date.now()) {
    const row = await this.asOwner(user, id);
    if (row.status !== "revoked") {
      const revoked = await this.changeThenAudit(
        repo
          .updateOwned(this.directory, user.id, row.id, [row.status], {
            status: "revoked",
            updatedAt: iso(now),
          })
          .run(),
        {
          userId: user.id,
          action: "emergency_contact.revoke",
          targetType: "emergency_contact",
          targetId: row.id,
          meta,
          details: { email: row.contactEmail, previous_status: row.status },
        },
      );
      if (revoked) this.ctx.tell(row);
    }
    await this.timers.cancelEmergency(row.id);
  }

  /** Spec: recipient only; 403 unless granted and in its window, 404 absent, 410 once the window has passed. */
  private async granted(user: AuthUser, id: string, now: number) {
    const found = await this.asContact(user, id);
    if (found.status === "access_requested" || found.status === "access_granted")
      await tickContact(this.ctx, id, now);
    const row = (await repo.findForParty(this.directory, user.id, id)) ?? found;
    if (row.status === "access_expired")
      throw new AppError(ErrorCode.GONE, "The access window has expired");
    if (row.status !== "access_granted" || !row.expiresAt || now >= Date.parse(row.expiresAt))
      throw forbidden("Access has not been granted");
    return row;
  }

  async access(user: AuthUser, id: string, meta: RequestMeta, now = Date.now()) {
    const row = await this.granted(user, id, now);
    await auditInsert(this.ctx.dbOf(user.id), {
      userId: user.id,
      action: "emergency_access.retrieve_key",
      targetType: "emergency_contact",
      targetId: row.id,
      meta,
      details: { owner_id: row.ownerId },
    });
    return { wrapped_access_key: row.wrappedAccessKey, invite_salt: row.inviteSalt };
  }

  /**
   * DECISIONS D15: the owner's live entries, as a full sync pull holds them (ciphertext, wrapped
   * item keys, blind indexes), for the contact to decrypt with the access key. Read-only; audited;
   * the owner is notified of the first read of each access window.
   */
  async readVault(user: AuthUser, id: string, meta: RequestMeta, now = Date.now()) {
    const row = await this.granted(user, id, now);
    const entries = await liveEntries(this.ctx.dbOf(row.ownerId), row.ownerId);
    await auditInsert(this.ctx.dbOf(user.id), {
      userId: user.id,
      action: "emergency_access.read_vault",
      targetType: "emergency_contact",
      targetId: row.id,
      meta,
      details: { owner_id: row.ownerId, entries: entries.length },
    });
    if (await repo.claimReadNotice(this.directory, row.id, row.grantedAt ?? iso(now), iso(now))) {
      await notify(this.ctx.dbOf(row.ownerId), {
        userId: row.ownerId,
        type: "emergency_vault_read",
        title: "Your emergency contact opened your vault",
        body: `${row.contactEmail} read your vault through emergency access.`,
        color: "warning",
        actionUrl: "/emergency",
        actorId: user.id,
        metadata: { contact_id: row.id },
      });
    }
    return { owner_email: row.ownerEmail, owner_id: row.ownerId, entries };
  }
}
