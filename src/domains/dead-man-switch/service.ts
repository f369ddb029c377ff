import type { RecoveryTimers } from "../../../durable-objects/recovery-timer";
import type { Db } from "../../db/client";
import type { DeadManSwitchRecipientRow, DeadManSwitchRow } from "../../db/schema";
import type { AuthUser, RequestMeta } from "../../kernel/context";
import { randomId } from "../../lib/crypto";
import {
  AppError,
  ErrorCode,
  conflict,
  forbidden,
  notFound,
  validationError,
} from "../../lib/errors";
import { auditInsert, type AuditInput } from "../audit";
import { checkInFields, daysRemaining, iso, ms, nextWake, statusAt } from "./engine";
import { hashPhrase, verifyPhrase } from "./phrase";
import * as repo from "./repo";
import type { RecipientInput, SwitchInput } from "./schema";
import { rowsChanged } from "../../db/d1";

export const DEFAULTS = {
  enabled: true,
  inactivity_days: 30,
  notify_at_days: [7, 3, 1],
  notify_via: ["email", "push"],
  confirmation_required: false,
};
export const MAX_RECIPIENTS = 10;

const lower = (e: string | undefined) => (e ? e.trim().toLowerCase() : null);

export function toSwitch(row: DeadManSwitchRow, now: number) {
  return {
    id: row.id,
    user_id: row.userId,
    enabled: row.enabled,
    inactivity_days: row.inactivityDays,
    notify_at_days: row.notifyAtDays,
    notify_via: row.notifyVia,
    last_check_in: row.lastCheckIn,
    next_trigger_at: row.enabled ? row.nextTriggerAt : null,
    status: statusAt(row, now),
    confirmation_required: row.confirmationRequired,
    secret_phrase: null,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

export function toRecipient(r: DeadManSwitchRecipientRow) {
  return {
    id: r.id,
    user_id: r.userId,
    recipient_email: r.recipientEmail,
    recipient_name: r.recipientName,
    status: r.status,
    wrapped_recovery_key: r.wrappedRecoveryKey,
    created_at: r.createdAt,
  };
}

/** Tracks the auth_time already applied per user in this isolate, so the sign-in hook costs one lookup. */
const seenSignIns = new Map<string, number>();

/**
 * DECISIONS D7: a request whose auth_time is later than last_check_in counts as a check-in. One
 * conditional UPDATE per new sign-in per isolate; returns whether the switch was reset. `db` is
 * the directory, which holds the switch (docs/decisions/scale.md, "Scale: shards, a directory, many databases").
 */
export async function applySignIn(
  db: Db,
  timers: RecoveryTimers,
  user: AuthUser,
  now = Date.now(),
): Promise<boolean> {
  if (user.authTime === undefined) return false;
  if (seenSignIns.get(user.id) === user.authTime) return false;
  const row = await repo.findSwitch(db, user.id);
  const authIso = iso(user.authTime * 1000);
  let reset = false;
  if (row && row.enabled && row.lastCheckIn < authIso) {
    const fields = checkInFields(row.inactivityDays, now);
    await timers.scheduleDeadManSwitch(user.id, nextWake({ ...row, ...fields })!);
    const [updated] = await db.batch([
      repo.resetOnSignIn(db, user.id, authIso, fields),
      repo.setRecipientsStatus(db, user.id, "pending", null),
      repo.insertLog(db, user.id, "sign_in", { auth_time: authIso }, iso(now)),
    ]);
    reset = updated.length > 0;
  }
  if (seenSignIns.size > 10_000) seenSignIns.clear();
  seenSignIns.set(user.id, user.authTime);
  return reset;
}

/**
 * The switch, its recipients and its log live in the directory (docs/decisions/scale.md, "Scale: shards, a directory, many databases"): a recipient on any shard
 * reads the transfers, the owner's switch (its phrase) and writes the owner's log, and each of the
 * switch's transitions still changes the three in one batch. `db` is the directory; `dbOf` gives a
 * user's shard, for the caller's audit events.
 */
export class DeadManSwitchService {
  constructor(
    private readonly db: Db,
    private readonly dbOf: (userId: string) => Db,
    private readonly timers: RecoveryTimers,
  ) {}

  /** The caller's audit event, on the caller's shard, after the change it reports has been made. */
  private audit(event: AuditInput) {
    return auditInsert(this.dbOf(event.userId), event);
  }

  async status(user: AuthUser, now = Date.now()) {
    await applySignIn(this.db, this.timers, user, now);
    const [[row], recipients, logs] = await this.db.batch([
      repo.switchQuery(this.db, user.id),
      repo.recipientsQuery(this.db, user.id),
      repo.recentLogs(this.db, user.id),
    ]);
    if (!row)
      return {
        switch: null,
        recipients: [],
        recent_logs: [],
        days_remaining: null,
        is_warning: false,
      };
    const status = statusAt(row, now);
    return {
      switch: toSwitch(row, now),
      recipients: recipients.map(toRecipient),
      recent_logs: logs.map((l) => ({
        action: l.action,
        timestamp: l.timestamp,
        details: l.details,
      })),
      days_remaining:
        row.enabled && row.nextTriggerAt ? daysRemaining(ms(row.nextTriggerAt), now) : null,
      is_warning: status === "warning",
    };
  }

  /** Create (201) or update only the given fields (200). Saving is an act of the owner, so it also checks in. */
  async save(user: AuthUser, input: SwitchInput, meta: RequestMeta, now = Date.now()) {
    const existing = await repo.findSwitch(this.db, user.id);
    const merged = {
      enabled: input.enabled ?? existing?.enabled ?? DEFAULTS.enabled,
      inactivityDays: input.inactivity_days ?? existing?.inactivityDays ?? DEFAULTS.inactivity_days,
      notifyAtDays: [
        ...(input.notify_at_days ?? existing?.notifyAtDays ?? DEFAULTS.notify_at_days),
      ].sort((a, b) => b - a),
      notifyVia: input.notify_via ?? existing?.notifyVia ?? DEFAULTS.notify_via,
      confirmationRequired:
        input.confirmation_required ??
        existing?.confirmationRequired ??
        DEFAULTS.confirmation_required,
    };
    const tooLate = merged.notifyAtDays.filter((d) => d >= merged.inactivityDays);
    if (tooLate.length)
      throw validationError("Reminder days must be fewer than inactivity_days", [
        {
          field: "notify_at_days",
          message: `must be less than inactivity_days (${merged.inactivityDays})`,
        },
      ]);
    const secretPhraseHash =
      input.secret_phrase === undefined
        ? (existing?.secretPhraseHash ?? null)
        : input.secret_phrase === null
          ? null
          : await hashPhrase(input.secret_phrase);
    const row: DeadManSwitchRow = {
      id: existing?.id ?? randomId(),
      userId: user.id,
      ownerEmail: lower(user.email) ?? existing?.ownerEmail ?? null,
      ...merged,
      secretPhraseHash,
      ...checkInFields(merged.inactivityDays, now),
      status: merged.enabled ? "idle" : "disabled",
      createdAt: existing?.createdAt ?? iso(now),
    };
    const wake = nextWake(row);
    if (wake !== null) await this.timers.scheduleDeadManSwitch(user.id, wake);
    const changed = Object.keys(input).filter(
      (k) => k !== "secret_phrase" || input.secret_phrase !== undefined,
    );
    const write = existing
      ? repo.updateSwitch(this.db, user.id, row)
      : repo.insertSwitch(this.db, row);
    const [res] = await this.db.batch([
      write,
      repo.setRecipientsStatus(this.db, user.id, "pending", null),
      repo.insertLog(
        this.db,
        user.id,
        existing ? "updated" : "created",
        { fields: changed },
        iso(now),
      ),
    ]);
    if (rowsChanged(res) === 0) throw conflict("The switch was changed concurrently; retry");
    await this.audit({
      userId: user.id,
      action: existing ? "dead_man_switch.update" : "dead_man_switch.create",
      targetType: "dead_man_switch",
      targetId: row.id,
      meta,
      details: { fields: changed },
    });
    if (wake === null) await this.timers.cancelDeadManSwitch(user.id);
    return { created: !existing, switch: toSwitch(row, now) };
  }

  async remove(user: AuthUser, meta: RequestMeta) {
    const existing = await repo.findSwitch(this.db, user.id);
    if (!existing) throw notFound("Dead man's switch");
    await this.db.batch([
      repo.deleteSwitch(this.db, user.id),
      repo.deleteRecipients(this.db, user.id),
      repo.deleteLogs(this.db, user.id),
    ]);
    await this.audit({
      userId: user.id,
      action: "dead_man_switch.delete",
      targetType: "dead_man_switch",
      targetId: existing.id,
      meta,
    });
    await this.timers.cancelDeadManSwitch(user.id);
  }

  async checkIn(user: AuthUser, now = Date.now()) {
    const row = await repo.findSwitch(this.db, user.id);
    if (!row) throw notFound("Dead man's switch");
    if (!row.enabled) throw conflict("The dead man's switch is disabled");
    const fields = checkInFields(row.inactivityDays, now);
    await this.timers.scheduleDeadManSwitch(user.id, nextWake({ ...row, ...fields })!);
    await this.db.batch([
      repo.updateSwitch(this.db, user.id, fields),
      repo.setRecipientsStatus(this.db, user.id, "pending", null),
      repo.insertLog(
        this.db,
        user.id,
        "check_in",
        { previous_status: statusAt(row, now) },
        iso(now),
      ),
    ]);
    return {
      success: true as const,
      next_trigger_at: fields.nextTriggerAt,
      days_until_trigger: daysRemaining(ms(fields.nextTriggerAt), now),
    };
  }

  async addRecipient(user: AuthUser, input: RecipientInput, meta: RequestMeta, now = Date.now()) {
    const row = await repo.findSwitch(this.db, user.id);
    if (!row) throw notFound("Dead man's switch");
    const email = lower(input.recipient_email)!;
    if (email === lower(user.email)) throw conflict("You cannot name yourself as a recipient");
    const released = row.status === "triggered" && !row.releaseAt;
    const rec: DeadManSwitchRecipientRow = {
      id: randomId(),
      ownerId: user.id,
      switchId: row.id,
      userId: null,
      recipientEmail: email,
      recipientName: input.recipient_name ?? null,
      status:
        row.status === "triggered" ? (released ? "released" : "awaiting_confirmation") : "pending",
      wrappedRecoveryKey: input.wrapped_recovery_key,
      releasedAt: released ? iso(now) : null,
      createdAt: iso(now),
    };
    if (!(await repo.insertRecipientUnderCap(this.db, rec, MAX_RECIPIENTS))) {
      // Refused: read only now which rule it was (the address, or the cap).
      const existing = await repo.listRecipients(this.db, user.id);
      if (existing.some((r) => r.recipientEmail === email))
        throw conflict("That address is already a recipient");
      throw new AppError(ErrorCode.UNPROCESSABLE, `At most ${MAX_RECIPIENTS} recipients`);
    }
    // Written after the row: only an added recipient leaves a log line and an audit event.
    await repo.insertLog(this.db, user.id, "recipient_added", { recipient_email: email }, iso(now));
    await this.audit({
      userId: user.id,
      action: "dead_man_switch.recipient_add",
      targetType: "dead_man_switch_recipient",
      targetId: rec.id,
      meta,
      details: { recipient_email: email },
    });
    return toRecipient(rec);
  }

  async removeRecipient(user: AuthUser, id: string, meta: RequestMeta) {
    const rec = (await repo.listRecipients(this.db, user.id)).find((r) => r.id === id);
    if (!rec) throw notFound("Recipient");
    await this.db.batch([
      repo.deleteRecipient(this.db, user.id, id),
      repo.insertLog(this.db, user.id, "recipient_removed", {
        recipient_email: rec.recipientEmail,
      }),
    ]);
    await this.audit({
      userId: user.id,
      action: "dead_man_switch.recipient_remove",
      targetType: "dead_man_switch_recipient",
      targetId: id,
      meta,
    });
  }

  /** What the caller may receive from others' switches: only transfers that have triggered. */
  async transfers(user: AuthUser) {
    const email = lower(user.email);
    const rows = (await repo.transfersFor(this.db, user.id, email)).filter(
      (r) => r.status !== "pending",
    );
    const out = [];
    for (const r of rows) {
      if (!r.userId && email) await repo.bindRecipient(this.db, r.id, user.id, email);
      const owner = await repo.findSwitch(this.db, r.ownerId);
      out.push({
        id: r.id,
        owner_id: r.ownerId,
        recipient_email: r.recipientEmail,
        recipient_name: r.recipientName,
        status: r.status,
        released_at: r.releasedAt,
        requires_secret_phrase: !!owner?.secretPhraseHash,
      });
    }
    return out;
  }

  /** The recipient's key, once released; the owner's secret phrase is required when one is set. */
  async claim(user: AuthUser, id: string, phrase: string | undefined, meta: RequestMeta) {
    const email = lower(user.email);
    const rec = (await repo.transfersFor(this.db, user.id, email)).find((r) => r.id === id);
    if (!rec || rec.status === "pending") throw notFound("Transfer");
    if (rec.status !== "released" || !rec.releasedAt)
      throw forbidden("The transfer has not been released yet");
    const owner = await repo.findSwitch(this.db, rec.ownerId);
    if (
      owner?.secretPhraseHash &&
      !(phrase !== undefined && (await verifyPhrase(phrase, owner.secretPhraseHash)))
    ) {
      throw forbidden("The secret phrase is missing or wrong");
    }
    if (!rec.userId && email) await repo.bindRecipient(this.db, rec.id, user.id, email);
    // The owner's log line first: a crash before the recipient's audit event still leaves the
    // retrieval where the owner looks.
    await repo.insertLog(this.db, rec.ownerId, "key_retrieved", {
      recipient_email: rec.recipientEmail,
    });
    await this.audit({
      userId: user.id,
      action: "dead_man_switch.retrieve_key",
      targetType: "dead_man_switch_recipient",
      targetId: rec.id,
      meta,
      details: { owner_id: rec.ownerId },
    });
    return {
      wrapped_recovery_key: rec.wrappedRecoveryKey,
      owner_id: rec.ownerId,
      released_at: rec.releasedAt,
    };
  }
}
