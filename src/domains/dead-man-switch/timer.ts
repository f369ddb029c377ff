import { dbFor, directoryDb, type Db } from "../../db/client";
import type { DeadManSwitchRow } from "../../db/schema";
import { loadConfig, type Bindings, type Config } from "../../env";
import { mailerFor, sendQuietly, type Mailer } from "../notifications";
import { notify } from "../notifications";
import {
  releasedMail,
  reminderBody,
  reminderMail,
  REMINDER_TITLE,
  triggeredBody,
  triggeredMail,
  TRIGGERED_TITLE,
} from "./mails";
import {
  CONFIRMATION_WINDOW_MS,
  daysRemaining,
  dueReminders,
  iso,
  ms,
  nextWake,
  statusAt,
} from "./engine";
import * as repo from "./repo";
import { rowsChanged } from "../../db/d1";

/** `db` is the directory, which holds the switches (docs/decisions/scale.md, "Scale: shards, a directory, many databases"); `ownerDb` the owner's shard, for notifications. */
type Ctx = { db: Db; ownerDb: Db; mailer: Mailer; appOrigin: string; config: Config };

/**
 * One tick of a user's switch (DECISIONS D7): send the reminders that are due, trigger when the
 * inactivity period has run out, release held transfers when the confirmation window has passed.
 * Returns when to wake next, or null when nothing is left to time.
 */
export async function runDeadManSwitchTimer(
  env: Bindings,
  userId: string,
  now: number,
): Promise<number | null> {
  const config = loadConfig(env);
  const ownerDb = dbFor(env, userId);
  const ctx = {
    db: directoryDb(env),
    ownerDb,
    mailer: mailerFor(config, ownerDb, env.MAIL_QUEUE, directoryDb(env)),
    appOrigin: config.APP_ORIGIN ?? "",
    config,
  };
  const next = await tick(ctx, userId, now);
  if (next === null && (await notYetInDirectory(ctx, userId))) return now + NOT_COPIED_RETRY_MS;
  return next;
}

/** How soon a timer looks again at a switch still waiting to be copied into the directory. */
const NOT_COPIED_RETRY_MS = 60 * 60 * 1000;

/**
 * A switch written on its owner's shard before the switch moved to the directory, and not yet copied
 * by the upgrade (docs/decisions/scale.md, "Scale: shards, a directory, many databases", "Cross-user records: upgrade and moves"): its timer
 * stays armed, since nothing else would arm it again if the owner never comes back.
 */
async function notYetInDirectory(ctx: Ctx, userId: string): Promise<boolean> {
  if (await repo.findSwitch(ctx.db, userId)) return false;
  return (await repo.findSwitch(ctx.ownerDb, userId)) !== undefined;
}

async function tick(ctx: Ctx, userId: string, now: number): Promise<number | null> {
  const row = await repo.findSwitch(ctx.db, userId);
  if (!row || !row.enabled) return null;
  if (row.status === "triggered") return releaseIfDue(ctx, row, now);
  if (row.nextTriggerAt && now >= ms(row.nextTriggerAt)) return trigger(ctx, row, now);

  const due = dueReminders(row, now);
  const status = statusAt(row, now);
  if (due.length === 0 && status === row.status) return nextWake(row);
  const set = { remindersSent: [...row.remindersSent, ...due], status, updatedAt: iso(now) };
  const [res] = await ctx.db.batch([
    repo.updateSwitchIfUnchanged(ctx.db, row, set),
    ...(due.length
      ? [
          repo.insertLog(
            ctx.db,
            userId,
            "reminder_sent",
            { days_remaining: daysRemaining(ms(row.nextTriggerAt!), now), channels: row.notifyVia },
            iso(now),
          ),
        ]
      : []),
  ]);
  if (rowsChanged(res) === 0) return now;
  if (due.length) await remind(ctx, row, now);
  return nextWake({ ...row, ...set });
}

async function remind(ctx: Ctx, row: DeadManSwitchRow, now: number) {
  const days = daysRemaining(ms(row.nextTriggerAt!), now);
  const title = REMINDER_TITLE;
  const body = reminderBody(days, row.nextTriggerAt!);
  if (row.notifyVia.includes("push")) {
    await notify(
      ctx.ownerDb,
      {
        userId: row.userId,
        type: "dead_man_switch_reminder",
        title,
        body,
        color: "warning",
        actionUrl: "/dead-man-switch",
        metadata: { days_remaining: days, next_trigger_at: row.nextTriggerAt },
      },
      ctx.config,
    );
  }
  if (row.notifyVia.includes("email") && row.ownerEmail) {
    await sendQuietly(
      ctx.mailer,
      reminderMail(ctx.appOrigin, row.ownerEmail, days, row.nextTriggerAt!),
    );
  }
}

async function trigger(ctx: Ctx, row: DeadManSwitchRow, now: number): Promise<number | null> {
  const held = row.confirmationRequired;
  const releaseAt = held ? iso(now + CONFIRMATION_WINDOW_MS) : null;
  const set = {
    status: "triggered" as const,
    triggeredAt: iso(now),
    releaseAt,
    updatedAt: iso(now),
  };
  const [res] = await ctx.db.batch([
    repo.updateSwitchIfUnchanged(ctx.db, row, set),
    repo.setRecipientsStatus(
      ctx.db,
      row.userId,
      held ? "awaiting_confirmation" : "released",
      held ? null : iso(now),
    ),
    repo.insertLog(
      ctx.db,
      row.userId,
      "triggered",
      { confirmation_required: held, release_at: releaseAt },
      iso(now),
    ),
  ]);
  if (rowsChanged(res) === 0) return now;
  const title = TRIGGERED_TITLE;
  const body = triggeredBody(releaseAt);
  await notify(ctx.ownerDb, {
    userId: row.userId,
    type: "dead_man_switch_triggered",
    title,
    body,
    color: "error",
    actionUrl: "/dead-man-switch",
    metadata: { release_at: releaseAt },
  });
  if (row.ownerEmail)
    await sendQuietly(ctx.mailer, triggeredMail(ctx.appOrigin, row.ownerEmail, releaseAt));
  if (!held) await mailRecipients(ctx, row.userId);
  return releaseAt ? ms(releaseAt) : null;
}

async function releaseIfDue(ctx: Ctx, row: DeadManSwitchRow, now: number): Promise<number | null> {
  if (!row.releaseAt) return null;
  if (now < ms(row.releaseAt)) return ms(row.releaseAt);
  const [res] = await ctx.db.batch([
    repo.updateSwitchIfUnchanged(ctx.db, row, { releaseAt: null, updatedAt: iso(now) }),
    repo.setRecipientsStatus(ctx.db, row.userId, "released", iso(now)),
    repo.insertLog(ctx.db, row.userId, "released", {}, iso(now)),
  ]);
  if (rowsChanged(res) === 0) return now;
  await mailRecipients(ctx, row.userId);
  return null;
}

async function mailRecipients(ctx: Ctx, ownerId: string) {
  for (const r of await repo.listRecipients(ctx.db, ownerId)) {
    await sendQuietly(ctx.mailer, releasedMail(ctx.appOrigin, r.recipientEmail));
  }
}
