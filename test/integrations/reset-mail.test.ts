import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/env";
import type { ResolvedService } from "../../src/domains/registry/resolve";
import { apiMailbox } from "../../src/domains/integrations";
import { waitForResetMail } from "../../src/domains/reset/mail";
import { TestUser } from "../support/auth";
import {
  accountReport,
  connectOAuth,
  patchAccount,
  providerAccount,
} from "../support/mail-provider";

const svc = {
  domain: "github.com",
  senderPatterns: ["@github.com"],
  linkPatterns: [/github\.com\/password_reset\//],
  otpPatterns: [/\b(\d{6})\b/],
} as unknown as ResolvedService;
const link = "https://github.com/password_reset/tok-123";

async function connected(
  provider: "mailx" | "maily",
  messages: { from: string; subject: string; date: string; body?: string }[],
) {
  const user = await TestUser.create();
  const account = await providerAccount(
    provider,
    `${provider}-${crypto.randomUUID().slice(0, 8)}@mail.example.test`,
    messages,
  );
  await connectOAuth(user, provider, account);
  return { mailbox: apiMailbox(env, loadConfig(env), user.id, provider), account };
}

describe("reset mail read through a connected mailx or maily mailbox", () => {
  it.each(["mailx", "maily"] as const)(
    "%s: finds the reset link, fetches only that message in full, marks only it read",
    async (provider) => {
      const now = new Date().toISOString();
      const { mailbox, account } = await connected(provider, [
        {
          from: "Other <news@other.example>",
          subject: "Reset your password",
          date: now,
          body: "https://other.example/password_reset/x",
        },
        {
          from: "GitHub <noreply@github.com>",
          subject: "[GitHub] Please reset your password",
          date: now,
          body: `Use this link: ${link}\n`,
        },
      ]);
      const found = await waitForResetMail(
        mailbox,
        svc,
        new Date(Date.now() - 60_000),
        Date.now() + 5_000,
      );
      expect(found).toEqual({ link, otp: null, mailAuthentication: "none" });
      const report = await accountReport(account);
      const full = report.requests.filter((r) => /format=raw|\/\$value/.test(r));
      expect(full).toHaveLength(1);
      expect(report.messages.map((m) => m.unread)).toEqual([true, false]);
      expect(
        report.requests.some((r) =>
          (provider === "mailx"
            ? /POST \/gmail\/v1\/users\/me\/messages\/[^/]+\/modify/
            : /PATCH \/v1\.0\/me\/messages\/[^/]+$/
          ).test(r),
        ),
      ).toBe(true);
    },
  );

  it("an OTP mail yields the code", async () => {
    const { mailbox } = await connected("maily", [
      {
        from: "GitHub <noreply@github.com>",
        subject: "Your code",
        date: new Date().toISOString(),
        body: "Your verification code is 493817.",
      },
    ]);
    expect(
      await waitForResetMail(mailbox, svc, new Date(Date.now() - 60_000), Date.now() + 5_000),
    ).toEqual({ link: null, otp: "493817", mailAuthentication: "none" });
  });

  it("mail older than the task is not taken, nor marked read; the wait ends with null", async () => {
    const old = new Date(Date.now() - 3_600_000).toISOString();
    const { mailbox, account } = await connected("mailx", [
      {
        from: "GitHub <noreply@github.com>",
        subject: "Reset your password",
        date: old,
        body: link,
      },
    ]);
    const t0 = Date.now();
    expect(await waitForResetMail(mailbox, svc, new Date(), Date.now() + 2_500)).toBeNull();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2_400);
    expect((await accountReport(account)).messages.map((m) => m.unread)).toEqual([true]);
  });

  it("a service with no sender to search by gets no mail read: the wait ends at once, the mailbox untouched", async () => {
    const { mailbox, account } = await connected("mailx", [
      {
        from: "GitHub <noreply@github.com>",
        subject: "Reset your password",
        date: new Date().toISOString(),
        body: link,
      },
    ]);
    const before = (await accountReport(account)).requests.length;
    const t0 = Date.now();
    expect(
      await waitForResetMail(
        mailbox,
        { ...svc, senderPatterns: ["@", " "] } as ResolvedService,
        new Date(Date.now() - 60_000),
        Date.now() + 5_000,
      ),
    ).toBeNull();
    expect(Date.now() - t0).toBeLessThan(1_000);
    const report = await accountReport(account);
    expect(report.requests.length).toBe(before);
    expect(report.messages.map((m) => m.unread)).toEqual([true]);
  });

  it("a provider failing for a while: the wait backs off and still takes the mail once it answers", async () => {
    const { mailbox, account } = await connected("mailx", [
      {
        from: "GitHub <noreply@github.com>",
        subject: "Reset your password",
        date: new Date().toISOString(),
        body: link,
      },
    ]);
    // Each listing makes three attempts (the adapter's own retries): the first listing fails outright.
    await patchAccount(account, { failNext: { status: 503, count: 3 } });
    expect(
      await waitForResetMail(mailbox, svc, new Date(Date.now() - 60_000), Date.now() + 20_000),
    ).toEqual({ link, otp: null, mailAuthentication: "none" });
    expect((await accountReport(account)).messages.map((m) => m.unread)).toEqual([false]);
  }, 30_000);

  it("a provider failing until the deadline: the wait ends with a failure that says so, not 'no mail'", async () => {
    const { mailbox, account } = await connected("maily", [
      {
        from: "GitHub <noreply@github.com>",
        subject: "Reset your password",
        date: new Date().toISOString(),
        body: link,
      },
    ]);
    await patchAccount(account, { failNext: { status: 429, count: 999, retryAfter: "1" } });
    await expect(
      waitForResetMail(mailbox, svc, new Date(Date.now() - 60_000), Date.now() + 4_000),
    ).rejects.toThrow(
      "the mailbox provider is not answering (HTTP 429); the reset mail could not be read",
    );
    expect((await accountReport(account)).messages.map((m) => m.unread)).toEqual([true]);
  }, 30_000);
});
