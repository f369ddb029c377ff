import { env } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import { loadConfig } from "../../src/env";
import { HttpApiMailer, mailerFor, OutboxMailer, sendQuietly } from "../../src/domains/notifications/mailer";
import { db, outbox } from "../support/recovery";

const base = inject("mailApiUrl");
const messages = async () => (await (await fetch(`${base}/messages`)).json()) as { from: string; to: string[]; subject: string; text: string }[];

describe("mailer", () => {
  it("defaults to the outbox transport, which stores the message for reading", async () => {
    const mailer = mailerFor(loadConfig(env), db);
    expect(mailer).toBeInstanceOf(OutboxMailer);
    const to = `${crypto.randomUUID()}@Example.test`;
    await mailer.send({ to, subject: "Hello", text: "Body", kind: "test.hello" });
    expect(await outbox(to)).toMatchObject([{ toAddress: to.toLowerCase(), subject: "Hello", textBody: "Body", kind: "test.hello" }]);
  });

  it("the http transport posts {from, to, subject, text} with the Bearer key to the mail API", async () => {
    const config = { ...loadConfig(env), MAIL_TRANSPORT: "http" as const, MAIL_API_URL: `${base}/emails`, MAIL_API_KEY: "test-mail-api-key", MAIL_FROM: "vault@example.test" };
    const mailer = mailerFor(config, db);
    expect(mailer).toBeInstanceOf(HttpApiMailer);
    const subject = `Reminder ${crypto.randomUUID()}`;
    await mailer.send({ to: "owner@example.test", subject, text: "Check in", kind: "test" });
    expect((await messages()).filter((m) => m.subject === subject)).toEqual([{ from: "vault@example.test", to: ["owner@example.test"], subject, text: "Check in" }]);
  });

  it("a refused key or an API failure is an error; sendQuietly reports it without throwing", async () => {
    const wrongKey = new HttpApiMailer(`${base}/emails`, "wrong", "vault@example.test");
    await expect(wrongKey.send({ to: "a@example.test", subject: "x", text: "y", kind: "test" })).rejects.toThrow("401");
    const mailer = new HttpApiMailer(`${base}/emails`, "test-mail-api-key", "vault@example.test");
    expect(await sendQuietly(mailer, { to: "a@example.test", subject: "[fail] x", text: "y", kind: "test" })).toBe(false);
    expect(await sendQuietly(mailer, { to: "a@example.test", subject: "fine", text: "y", kind: "test" })).toBe(true);
  });

  it("the http transport without its settings is a configuration error, not a silent fallback", () => {
    expect(() => loadConfig({ ...env, MAIL_TRANSPORT: "http", MAIL_API_URL: `${base}/emails` })).toThrow("Service misconfigured");
    expect(() => mailerFor({ ...loadConfig(env), MAIL_TRANSPORT: "http" }, db)).toThrow(/MAIL_API_URL/);
  });
});
