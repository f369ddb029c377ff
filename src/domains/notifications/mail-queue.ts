import type { Db } from "../../db/client";
import { mailDeadLetters, mailRetryOutbox } from "../../db/schema";
import type { Config } from "../../env";
import { randomId } from "../../lib/crypto";
import {
  httpMailer,
  MailApiError,
  OutboxMailer,
  type HttpApiMailer,
  type Mail,
  type Mailer,
} from "./mailer";
import { errorName, logJson } from "../../lib/log";

/**
 * The queue's message is the mail itself (it may carry an invitation token: it is never logged).
 * Queues keep a message for up to its retention, so a mail API outage of hours loses nothing.
 */
export type MailMessage = { mail: Mail };

/** The queue's name in wrangler.toml: src/index.ts routes its batches here. */
export const MAIL_QUEUE_NAME = "credential-vault-mail";
/** wrangler.toml `max_retries` of the mail consumer: the delivery after the last retry dead-letters. */
export const MAIL_QUEUE_MAX_RETRIES = 8;
/** Queues accepts delays up to 12 hours; a longer Retry-After is waited in several steps. */
const MAX_DELAY_SECONDS = 12 * 60 * 60;

/** Exponential backoff from MAIL_RETRY_BASE_SECONDS, doubling per attempt, capped at 6 hours. */
export function mailBackoff(baseSeconds: number, attempts: number): number {
  return Math.min(6 * 60 * 60, baseSeconds * 2 ** Math.max(0, attempts - 1));
}

/** A 429's or 503's Retry-After (RFC 9110 section 10.2.3) wins over the backoff when it is longer. */
export function delayFor(err: unknown, baseSeconds: number, attempts: number): number {
  const backoff = mailBackoff(baseSeconds, attempts);
  const asked = err instanceof MailApiError ? err.retryAfter : undefined;
  return Math.min(
    MAX_DELAY_SECONDS,
    Math.max(1, asked === undefined ? backoff : Math.max(asked, 1)),
  );
}

export const reason = (err: unknown) =>
  err instanceof MailApiError ? err.message : err instanceof Error ? err.name : "unknown error";

/**
 * The HTTP transport with a queue behind it (DECISIONS D19): every mail is tried at once, so the
 * common case costs no queue round trip and no delay; a failed try enqueues the message with its
 * first delay, and the consumer below retries it.
 */
export class QueuedMailer implements Mailer {
  constructor(
    private readonly http: HttpApiMailer,
    private readonly queue: Queue<MailMessage>,
    private readonly baseSeconds: number,
    /** The directory database, where a mail the queue would not take waits for the scheduled job. */
    private readonly park: Db,
  ) {}

  async send(mail: Mail): Promise<void> {
    try {
      await this.http.send(mail);
    } catch (err) {
      const delaySeconds = delayFor(err, this.baseSeconds, 1);
      try {
        await this.queue.send({ mail }, { delaySeconds });
        logJson("warn", "mail send deferred to the queue", {
          kind: mail.kind,
          reason: reason(err),
        });
      } catch (queueErr) {
        // The queue refused too (an outage, a limit): the mail is kept in D1 for the scheduled job.
        logJson("warn", "mail send deferred to the retry outbox", {
          kind: mail.kind,
          reason: reason(err),
          queueError: errorName(queueErr),
        });
        await parkMail(this.park, mail, 1, reason(err), delaySeconds);
      }
    }
  }
}

/** Writes a mail to the retry outbox, due after `delaySeconds`. */
export async function parkMail(
  db: Db,
  mail: Mail,
  attempts: number,
  lastError: string,
  delaySeconds: number,
): Promise<void> {
  const now = Date.now();
  await db.insert(mailRetryOutbox).values({
    id: randomId(),
    toAddress: mail.to.toLowerCase(),
    subject: mail.subject,
    textBody: mail.text,
    kind: mail.kind,
    attempts,
    lastError,
    nextAttemptAt: new Date(now + delaySeconds * 1000).toISOString(),
    createdAt: new Date(now).toISOString(),
  });
}

/**
 * MAIL_TRANSPORT selects the transport: `outbox` (default) or `http` (MAIL_API_URL, MAIL_API_KEY,
 * MAIL_FROM), whose failed sends go to `queue` (the MAIL_QUEUE binding) for retries.
 */
export function mailerFor(
  config: Config,
  db: Db,
  queue: Queue<MailMessage> | undefined,
  directory: Db = db,
): Mailer {
  if (config.MAIL_TRANSPORT !== "http") return new OutboxMailer(db);
  const http = httpMailer(config);
  if (!queue) throw new Error("MAIL_TRANSPORT=http needs the MAIL_QUEUE binding");
  return new QueuedMailer(http, queue, config.MAIL_RETRY_BASE_SECONDS, directory);
}

/**
 * One delivery per message: sent is acked; refused is retried after the backoff (or the API's
 * Retry-After); refused on the last delivery is written to `mail_dead_letters` and acked, so it
 * is kept for an operator instead of being dropped by the queue.
 */
export async function consumeMailBatch(
  batch: MessageBatch<MailMessage>,
  config: Config,
  db: Db,
): Promise<void> {
  const http = httpMailer(config);
  for (const msg of batch.messages) {
    const { mail } = msg.body;
    try {
      await http.send(mail);
      msg.ack();
    } catch (err) {
      // The immediate try in QueuedMailer was attempt 1, so a delivery is attempt msg.attempts + 1.
      const attempt = msg.attempts + 1;
      if (msg.attempts <= MAIL_QUEUE_MAX_RETRIES) {
        msg.retry({ delaySeconds: delayFor(err, config.MAIL_RETRY_BASE_SECONDS, attempt) });
        continue;
      }
      logJson("error", "mail dead-lettered", { kind: mail.kind, reason: reason(err) });
      await db.insert(mailDeadLetters).values({
        id: randomId(),
        toAddress: mail.to.toLowerCase(),
        subject: mail.subject,
        textBody: mail.text,
        kind: mail.kind,
        attempts: attempt,
        lastError: reason(err),
        createdAt: new Date().toISOString(),
      });
      msg.ack();
    }
  }
}
