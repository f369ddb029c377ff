import { and, asc, eq, lte } from "drizzle-orm";
import type { Db } from "../../db/client";
import { mailDeadLetters, mailRetryOutbox, type MailRetryOutboxRow } from "../../db/schema";
import type { Config } from "../../env";
import { randomId } from "../../lib/crypto";
import { delayFor, MAIL_QUEUE_MAX_RETRIES, reason } from "./mail-queue";
import { httpMailer } from "./mailer";
import { logJson } from "../../lib/log";

/** Rows one scheduled run retries; the rest wait for the next run. */
const BATCH = 50;
/** A claimed row is not due again for this long, so two overlapping runs never send it twice. */
const CLAIM_SECONDS = 10 * 60;

/**
 * The scheduled half of the retry outbox (DECISIONS D19): each due mail is claimed (its due time
 * moved on by a conditional write, so an overlapping run skips it), sent, and deleted once the mail
 * API took it; a refusal is retried with the queue's backoff, and the last one (the queue's retry
 * count) moves the mail to mail_dead_letters. Returns what happened, for the run's log line.
 */
export async function retryParkedMail(
  config: Config,
  db: Db,
  now = Date.now(),
): Promise<{ sent: number; retried: number; deadLettered: number }> {
  const out = { sent: 0, retried: 0, deadLettered: 0 };
  if (config.MAIL_TRANSPORT !== "http") return out;
  const http = httpMailer(config);
  const due = await db
    .select()
    .from(mailRetryOutbox)
    .where(lte(mailRetryOutbox.nextAttemptAt, new Date(now).toISOString()))
    .orderBy(asc(mailRetryOutbox.nextAttemptAt))
    .limit(BATCH);
  for (const row of due) {
    if (!(await claim(db, row, now))) continue;
    const mail = { to: row.toAddress, subject: row.subject, text: row.textBody, kind: row.kind };
    try {
      await http.send(mail);
      await db.delete(mailRetryOutbox).where(eq(mailRetryOutbox.id, row.id));
      out.sent++;
    } catch (err) {
      const attempts = row.attempts + 1;
      if (attempts > MAIL_QUEUE_MAX_RETRIES + 1) {
        logJson("error", "mail dead-lettered", { kind: row.kind, reason: reason(err) });
        await db.batch([
          db.insert(mailDeadLetters).values({
            id: randomId(),
            toAddress: row.toAddress,
            subject: row.subject,
            textBody: row.textBody,
            kind: row.kind,
            attempts,
            lastError: reason(err),
            createdAt: new Date(now).toISOString(),
          }),
          db.delete(mailRetryOutbox).where(eq(mailRetryOutbox.id, row.id)),
        ]);
        out.deadLettered++;
        continue;
      }
      const next = new Date(
        now + delayFor(err, config.MAIL_RETRY_BASE_SECONDS, attempts) * 1000,
      ).toISOString();
      await db
        .update(mailRetryOutbox)
        .set({ attempts, lastError: reason(err), nextAttemptAt: next })
        .where(eq(mailRetryOutbox.id, row.id));
      out.retried++;
    }
  }
  return out;
}

async function claim(db: Db, row: MailRetryOutboxRow, now: number): Promise<boolean> {
  const until = new Date(now + CLAIM_SECONDS * 1000).toISOString();
  const res = await db
    .update(mailRetryOutbox)
    .set({ nextAttemptAt: until })
    .where(
      and(eq(mailRetryOutbox.id, row.id), eq(mailRetryOutbox.nextAttemptAt, row.nextAttemptAt)),
    );
  return (res.meta.changes ?? 0) === 1;
}
