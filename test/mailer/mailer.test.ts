import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, inject, it } from "vitest";
import { loadConfig, type Bindings } from "../../src/env";
import { dbFor } from "../../src/db/client";
import { mailDeadLetters } from "../../src/db/schema";
import worker from "../../src/index";
import {
  HttpApiMailer,
  MailApiError,
  OutboxMailer,
  sendQuietly,
  type Mail,
} from "../../src/domains/notifications/mailer";
import {
  consumeMailBatch,
  MAIL_QUEUE_MAX_RETRIES,
  MAIL_QUEUE_NAME,
  mailerFor,
  QueuedMailer,
  type MailMessage,
} from "../../src/domains/notifications/mail-queue";
import { db, outbox } from "../support/recovery";

const base = inject("mailApiUrl");
const httpConfig = () => ({
  ...loadConfig(env),
  MAIL_TRANSPORT: "http" as const,
  MAIL_API_URL: `${base}/emails`,
  MAIL_API_KEY: "test-mail-api-key",
  MAIL_FROM: "vault@example.test",
});

/** Stands in for MAIL_QUEUE on the producer side: records what is enqueued and with which delay. */
function recordingQueue() {
  const sent: { body: MailMessage; delaySeconds?: number }[] = [];
  const queue = {
    send: async (body: MailMessage, opts?: { delaySeconds?: number }) =>
      void sent.push({ body, delaySeconds: opts?.delaySeconds }),
  } as unknown as Queue<MailMessage>;
  return { queue, sent };
}

/** Delivers queued mail through the worker's own queue handler, as Queues would, and reports acks and retries. */
async function deliver(mail: Mail, attempts: number, config: Partial<Bindings> = {}) {
  const batch = createMessageBatch<MailMessage>(MAIL_QUEUE_NAME, [
    { id: crypto.randomUUID(), timestamp: new Date(), attempts, body: { mail } },
  ]);
  const { MAIL_API_URL, MAIL_API_KEY, MAIL_FROM } = httpConfig();
  const e = {
    ...env,
    MAIL_TRANSPORT: "http",
    MAIL_API_URL,
    MAIL_API_KEY,
    MAIL_FROM,
    ...config,
  } as Bindings;
  const exec = createExecutionContext();
  await worker.queue(batch, e);
  return getQueueResult(batch, exec);
}
const messages = async () =>
  (await (await fetch(`${base}/messages`)).json()) as {
    from: string;
    to: string[];
    subject: string;
    text: string;
  }[];

describe("mailer", () => {
  it("defaults to the outbox transport, which stores the message for reading", async () => {
    // The outbox a mail is kept in is its user's database, as in the worker (on one shard of three).
    const mailer = mailerFor(loadConfig(env), dbFor(env, crypto.randomUUID()), undefined);
    expect(mailer).toBeInstanceOf(OutboxMailer);
    const to = `${crypto.randomUUID()}@Example.test`;
    await mailer.send({ to, subject: "Hello", text: "Body", kind: "test.hello" });
    expect(await outbox(to)).toMatchObject([
      { toAddress: to.toLowerCase(), subject: "Hello", textBody: "Body", kind: "test.hello" },
    ]);
  });

  it("the http transport posts {from, to, subject, text} with the Bearer key to the mail API", async () => {
    const config = {
      ...loadConfig(env),
      MAIL_TRANSPORT: "http" as const,
      MAIL_API_URL: `${base}/emails`,
      MAIL_API_KEY: "test-mail-api-key",
      MAIL_FROM: "vault@example.test",
    };
    const mailer = mailerFor(config, db, recordingQueue().queue);
    expect(mailer).toBeInstanceOf(QueuedMailer);
    const subject = `Reminder ${crypto.randomUUID()}`;
    await mailer.send({ to: "owner@example.test", subject, text: "Check in", kind: "test" });
    expect((await messages()).filter((m) => m.subject === subject)).toEqual([
      { from: "vault@example.test", to: ["owner@example.test"], subject, text: "Check in" },
    ]);
  });

  it("a refused key or an API failure is an error; sendQuietly reports it without throwing", async () => {
    const wrongKey = new HttpApiMailer(`${base}/emails`, "wrong", "vault@example.test");
    await expect(
      wrongKey.send({ to: "a@example.test", subject: "x", text: "y", kind: "test" }),
    ).rejects.toThrow("401");
    const mailer = new HttpApiMailer(`${base}/emails`, "test-mail-api-key", "vault@example.test");
    expect(
      await sendQuietly(mailer, {
        to: "a@example.test",
        subject: "[fail] x",
        text: "y",
        kind: "test",
      }),
    ).toBe(false);
    expect(
      await sendQuietly(mailer, { to: "a@example.test", subject: "fine", text: "y", kind: "test" }),
    ).toBe(true);
  });

  it("the http transport without its settings is a configuration error, not a silent fallback", () => {
    expect(() =>
      loadConfig({ ...env, MAIL_TRANSPORT: "http", MAIL_API_URL: `${base}/emails` }),
    ).toThrow("Service misconfigured");
    expect(() =>
      mailerFor({ ...loadConfig(env), MAIL_TRANSPORT: "http" }, db, recordingQueue().queue),
    ).toThrow(/MAIL_API_URL/);
    expect(() => mailerFor(httpConfig(), db, undefined)).toThrow(/MAIL_QUEUE/);
  });

  describe("queued retries (D19)", () => {
    const invite = (tag: string): Mail => ({
      to: "contact@example.test",
      subject: `${tag} Emergency contact invitation ${crypto.randomUUID()}`,
      text: "Accept: https://app.test/emergency/accept#tok",
      kind: "emergency.invite",
    });

    it("a send the API refuses is queued with the base delay, and arrives when the queue delivers it again", async () => {
      const { queue, sent } = recordingQueue();
      const mailer = mailerFor(httpConfig(), db, queue);
      const mail = invite("[flaky]");
      expect(await sendQuietly(mailer, mail)).toBe(true);
      expect((await messages()).some((m) => m.subject === mail.subject)).toBe(false);
      expect(sent).toEqual([{ body: { mail }, delaySeconds: 30 }]);
      const result = await deliver(sent[0]!.body.mail, 1);
      expect(result.explicitAcks).toHaveLength(1);
      expect(result.retryMessages).toEqual([]);
      expect((await messages()).filter((m) => m.subject === mail.subject)).toEqual([
        { from: "vault@example.test", to: [mail.to], subject: mail.subject, text: mail.text },
      ]);
    });

    it("a 429 waits for its Retry-After", async () => {
      const { queue, sent } = recordingQueue();
      await mailerFor(httpConfig(), db, queue).send(invite("[429]"));
      expect(sent.map((s) => s.delaySeconds)).toEqual([120]);
      expect(new MailApiError(429, 5).retryAfter).toBe(5);
    });

    it("a refusal on a queued delivery is retried with exponential backoff", async () => {
      // getQueueResult does not report delays, so this message records its own ack and retry.
      const calls: unknown[] = [];
      const msg = {
        id: "m1",
        timestamp: new Date(),
        attempts: 3,
        body: { mail: invite("[fail]") },
        ack: () => calls.push("ack"),
        retry: (o: unknown) => calls.push(o),
      };
      const batch = {
        queue: MAIL_QUEUE_NAME,
        messages: [msg],
      } as unknown as MessageBatch<MailMessage>;
      await consumeMailBatch(batch, { ...httpConfig(), MAIL_RETRY_BASE_SECONDS: 10 }, db);
      // Delivery 3 is the fourth try (the first was immediate): the next waits 10 * 2^3 s.
      expect(calls).toEqual([{ delaySeconds: 80 }]);
    });

    it("after the last retry the mail is kept in mail_dead_letters, not dropped", async () => {
      const mail = invite("[fail]");
      const result = await deliver(mail, MAIL_QUEUE_MAX_RETRIES + 1);
      expect(result.explicitAcks).toHaveLength(1);
      const rows = await db
        .select()
        .from(mailDeadLetters)
        .where(eq(mailDeadLetters.subject, mail.subject));
      expect(rows).toMatchObject([
        {
          toAddress: mail.to,
          textBody: mail.text,
          kind: "emergency.invite",
          attempts: MAIL_QUEUE_MAX_RETRIES + 2,
          lastError: "mail API answered 500",
        },
      ]);
    });
  });
});
