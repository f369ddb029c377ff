import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/env";
import { resolveService, type ResolvedService } from "../../src/domains/registry/resolve";
import { apiMailbox } from "../../src/domains/integrations";
import { gmailQueries } from "../../src/domains/integrations/mailbox";
import { waitForResetMail } from "../../src/domains/reset/mail";
import { dbFor } from "../../src/db/client";
import { TestUser } from "../support/auth";
import { accountReport, connectOAuth, providerAccount } from "../support/mail-provider";

const link = "https://github.com/password_reset/tok-456";

describe("the Gmail-shaped reader searches with the registry's gmail_search_queries", () => {
  it("each registry query becomes an unread search; a service without any searches by its senders", () => {
    const since = new Date("2026-01-02T00:00:00Z");
    expect(
      gmailQueries(
        ["from:github.com subject:(password OR reset)", "from:gh.io"],
        ["github.com"],
        since,
      ),
    ).toEqual(["is:unread from:github.com subject:(password OR reset)", "is:unread from:gh.io"]);
    expect(gmailQueries([], ["github.com", "gh.io"], since)).toEqual([
      `is:unread after:${since.getTime() / 1000 - 86_400} (from:github.com OR from:gh.io)`,
    ]);
  });

  it("a mailx mailbox: only what the registry query matches is fetched in full; the reset link is found", async () => {
    const user = await TestUser.create();
    const svc = await resolveService(dbFor(env, user.id), "https://github.com/login");
    expect(svc.mailboxQueries.length).toBeGreaterThan(0);
    const now = new Date().toISOString();
    const account = await providerAccount(
      "mailx",
      `q-${crypto.randomUUID().slice(0, 8)}@mail.example.test`,
      [
        {
          from: "GitHub <noreply@github.com>",
          subject: "Your weekly digest",
          date: now,
          body: "https://github.com/password_reset/not-this-one",
        },
        {
          from: "GitHub <noreply@github.com>",
          subject: "[GitHub] Please reset your password",
          date: now,
          body: `Use this link: ${link}\n`,
        },
      ],
    );
    await connectOAuth(user, "mailx", account);
    const mailbox = apiMailbox(env, loadConfig(env), user.id, "mailx");
    const found = await waitForResetMail(
      mailbox,
      svc as ResolvedService,
      new Date(Date.now() - 60_000),
      Date.now() + 5_000,
    );
    expect(found).toEqual({ link, otp: null, mailAuthentication: "none" });
    const report = await accountReport(account);
    const searches = report.requests
      .filter((r) => /GET \/gmail\/v1\/users\/me\/messages\?/.test(r))
      .map((r) => new URL(r.split(" ")[1], "http://x").searchParams.get("q"));
    expect(searches[0]).toBe(`is:unread ${svc.mailboxQueries[0]}`);
    expect(report.requests.filter((r) => /format=raw/.test(r))).toHaveLength(1);
    expect(report.messages.map((m) => m.unread)).toEqual([true, false]);
  });
});
