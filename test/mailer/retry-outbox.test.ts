import {
  createExecutionContext,
  createScheduledController,
  env,
  waitOnExecutionContext,
} from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, inject, it } from "vitest";
import { directoryDb } from "../../src/db/client";
import { mailDeadLetters, mailRetryOutbox } from "../../src/db/schema";
import { retryParkedMail } from "../../src/domains/notifications";
import {
  MAIL_QUEUE_MAX_RETRIES,
  mailerFor,
  type MailMessage,
} from "../../src/domains/notifications/mail-queue";
import { HttpApiMailer, sendQuietly, type Mail } from "../../src/domains/notifications/mailer";
import { loadConfig, type Bindings } from "../../src/env";
import worker from "../../src/index";

// DECISIONS D19: a mail is never dropped. When the mail API refuses and the queue will not take the
// mail either, it waits in a D1 outbox that the scheduled job retries.
const base = inject("mailApiUrl");
const httpVars = {
  MAIL_TRANSPORT: "http",
  MAIL_API_URL: `${base}/emails`,
  MAIL_API_KEY: "test-mail-api-key",
  MAIL_FROM: "vault@example.test",
} as const;
const httpConfig = () => ({ ...loadConfig(env), ...httpVars });
const db = directoryDb(env);
const messages = async () =>
  (await (await fetch(`${base}/messages`)).json()) as { subject: string; text: string }[];
const brokenQueue = {
  send: async () => {
    throw new Error("Queue send failed: queue is unavailable");
  },
} as unknown as Queue<MailMessage>;
const invite = (tag: string): Mail => ({
  to: "Contact@Example.test",
  subject: `${tag} Emergency contact invitation ${crypto.randomUUID()}`,
  text: "Accept: https://app.test/emergency/accept#tok",
  kind: "emergency.invite",
});
const parked = (subject: string) =>
  db.select().from(mailRetryOutbox).where(eq(mailRetryOutbox.subject, subject));
const later = (rows: { nextAttemptAt: string }[]) => Date.parse(rows[0]!.nextAttemptAt) + 1000;

describe("mail retry outbox", () => {
  it("a mail the API refuses and the queue will not take is kept in D1, not lost", async () => {
    const mail = invite("[flaky]");
    expect(await sendQuietly(mailerFor(httpConfig(), db, brokenQueue, db), mail)).toBe(true);
    const rows = await parked(mail.subject);
    expect(rows).toMatchObject([
      {
        toAddress: "contact@example.test",
        textBody: mail.text,
        kind: "emergency.invite",
        attempts: 1,
        lastError: "mail API answered 500",
      },
    ]);
    // Due after the first backoff (MAIL_RETRY_BASE_SECONDS, 30 s by default), not before.
    expect(Date.parse(rows[0]!.nextAttemptAt) - Date.parse(rows[0]!.createdAt)).toBe(30_000);
    expect(await retryParkedMail(httpConfig(), db, Date.now())).toMatchObject({ sent: 0 });
    expect((await messages()).some((m) => m.subject === mail.subject)).toBe(false);

    const run = await retryParkedMail(httpConfig(), db, later(rows));
    expect(run.sent).toBeGreaterThanOrEqual(1);
    expect((await messages()).filter((m) => m.subject === mail.subject)).toEqual([
      expect.objectContaining({ text: mail.text }),
    ]);
    expect(await parked(mail.subject)).toEqual([]);
  });

  it("the scheduled handler runs the retries", async () => {
    const mail = invite("[flaky]");
    await mailerFor(httpConfig(), db, brokenQueue, db).send(mail);
    const rows = await parked(mail.subject);
    await db
      .update(mailRetryOutbox)
      .set({ nextAttemptAt: new Date(Date.now() - 1000).toISOString() })
      .where(eq(mailRetryOutbox.id, rows[0]!.id));
    const ctx = createExecutionContext();
    await worker.scheduled!(createScheduledController(), { ...env, ...httpVars } as Bindings, ctx);
    await waitOnExecutionContext(ctx);
    expect((await messages()).filter((m) => m.subject === mail.subject)).toHaveLength(1);
    expect(await parked(mail.subject)).toEqual([]);
  });

  it("two overlapping runs send a parked mail once", async () => {
    const mail = invite("[flaky]");
    await mailerFor(httpConfig(), db, brokenQueue, db).send(mail);
    const at = later(await parked(mail.subject));
    await Promise.all([
      retryParkedMail(httpConfig(), db, at),
      retryParkedMail(httpConfig(), db, at),
    ]);
    expect((await messages()).filter((m) => m.subject === mail.subject)).toHaveLength(1);
  });

  it("a mail the API keeps refusing backs off, then moves to mail_dead_letters after the queue's retry count", async () => {
    const mail = invite("[fail]");
    await mailerFor(httpConfig(), db, brokenQueue, db).send(mail);
    let rows = await parked(mail.subject);
    const delays: number[] = [];
    while (rows.length) {
      const at = later(rows);
      await retryParkedMail(httpConfig(), db, at);
      rows = await parked(mail.subject);
      if (rows.length) delays.push(Date.parse(rows[0]!.nextAttemptAt) - at);
    }
    expect(delays.slice(0, 3)).toEqual([60_000, 120_000, 240_000]);
    expect(delays).toHaveLength(MAIL_QUEUE_MAX_RETRIES);
    const dead = await db
      .select()
      .from(mailDeadLetters)
      .where(eq(mailDeadLetters.subject, mail.subject));
    expect(dead).toMatchObject([
      {
        textBody: mail.text,
        kind: "emergency.invite",
        attempts: MAIL_QUEUE_MAX_RETRIES + 2,
        lastError: "mail API answered 500",
      },
    ]);
  });

  it("a mail API that never answers is a failed send after the timeout, and the mail is queued", async () => {
    const mailer = new HttpApiMailer(
      `${base}/emails`,
      "test-mail-api-key",
      "vault@example.test",
      300,
    );
    const started = Date.now();
    await expect(mailer.send(invite("[hang]"))).rejects.toThrow("mail API timed out");
    expect(Date.now() - started).toBeLessThan(5000);

    const queued: MailMessage[] = [];
    const queue = {
      send: async (body: MailMessage) => void queued.push(body),
    } as unknown as Queue<MailMessage>;
    const mail = invite("[hang]");
    const started2 = Date.now();
    await mailerFor({ ...httpConfig(), MAIL_API_TIMEOUT_SECONDS: 1 }, db, queue, db).send(mail);
    expect(Date.now() - started2).toBeLessThan(5000);
    expect(queued).toEqual([{ mail }]);
  });
});
