import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { EXCLUDED_DOMAINS } from "../../src/domains/discovery/rules";
import { TestUser } from "../support/auth";
import { createEntry } from "../support/fixtures";
import { accountReport, patchAccount, replaceImapMessages } from "../support/mail-provider";
import { pull } from "../sync/helpers";
import {
  byDomain,
  connectSource,
  FIXTURE,
  FIXTURE_DOMAINS,
  list,
  scan,
  type Source,
} from "./support";

describe("discovery scan: the rules, over each endpoint family", () => {
  it.each(["imap", "mailx", "maily"] as Source[])(
    "%s: subjects, label stripping, exclusions, known services",
    async (source) => {
      const user = await TestUser.create();
      const { email } = await connectSource(user, source);
      const body = await scan(user);
      expect(body.accounts.map((a) => a.domain).sort()).toEqual(FIXTURE_DOMAINS);
      expect(body.stats).toEqual({
        total: 6,
        inVault: 0,
        notInVault: 6,
        oauthLikely: 0,
        dismissed: 0,
      });
      const a = byDomain(body);
      expect(a["github.com"]).toMatchObject({
        serviceName: "GitHub",
        serviceIcon: "https://github.com/favicon.ico",
        serviceColor: "#181717",
        category: "development",
        loginUrl: "https://github.com/login",
        inVault: false,
        vaultPasswordId: null,
        dismissed: false,
        oauthLikely: false,
        emailCount: 2,
        lastSeen: "2026-03-01T12:30:00.000Z",
        sourceEmail: email,
      });
      expect(a["acme-widgets.com"]).toMatchObject({
        serviceName: "Acme-widgets",
        serviceColor: "#9CA3AF",
        category: null,
        loginUrl: null,
        serviceIcon: "https://acme-widgets.com/favicon.ico",
        emailCount: 1,
      });
      expect(a["service-one.test"].serviceName).toBe("Service-one");
      expect(a["shopzilla.test"].lastSeen).toBe("2026-02-03T08:00:00.000Z");
      expect(a["dropbox.com"].serviceName).toBe("Dropbox");
      // GET returns what was persisted, without scanning again.
      expect(await list(user)).toEqual(body);
    },
  );

  it("the original family scans the mailx mailbox and lists the same", async () => {
    const user = await TestUser.create();
    await connectSource(user, "mailx");
    const body = await scan(user, undefined, true);
    expect(body.accounts.map((a) => a.domain).sort()).toEqual(FIXTURE_DOMAINS);
    expect(await list(user, "", true)).toEqual(body);
  });

  it("31 domains are excluded", () => {
    expect(EXCLUDED_DOMAINS.size).toBe(31);
  });

  it("in-vault matching: by website host, by service name in the entry name, by domain substring", async () => {
    const user = await TestUser.create();
    const byHost = await createEntry(user, {
      name: "Files",
      website: "https://www.dropbox.com/login",
    });
    const byName = await createEntry(user, {
      name: "My slack workspace",
      website: "chat.example.org",
    });
    const bySubstring = await createEntry(user, {
      name: "Shop",
      website: "https://portal.shopzilla.test.example.net/x",
    });
    await connectSource(user, "imap");
    const a = byDomain(await scan(user));
    expect(a["dropbox.com"]).toMatchObject({ inVault: true, vaultPasswordId: byHost.id });
    expect(a["slack.com"]).toMatchObject({ inVault: true, vaultPasswordId: byName.id });
    expect(a["shopzilla.test"]).toMatchObject({ inVault: true, vaultPasswordId: bySubstring.id });
    expect(a["github.com"]).toMatchObject({ inVault: false, vaultPasswordId: null });
    expect((await list(user)).stats).toEqual({
      total: 6,
      inVault: 3,
      notInVault: 3,
      oauthLikely: 0,
      dismissed: 0,
    });
  });

  it("a rescan keeps the dismissed state and removes accounts that no longer appear", async () => {
    const user = await TestUser.create();
    const { handle } = await connectSource(user, "imap");
    const first = byDomain(await scan(user));
    const res = await user.call("PATCH", "/api/accounts", {
      body: { id: first["shopzilla.test"].id, dismissed: true },
    });
    expect(res.status).toBe(200);
    expect(
      ((await res.json()) as { success: boolean; account: { dismissed: boolean } }).account
        .dismissed,
    ).toBe(true);
    await replaceImapMessages(
      handle,
      FIXTURE.filter((m) => !m.from.includes("acme-widgets")),
    );
    const second = await scan(user);
    expect(second.accounts.map((a) => a.domain).sort()).toEqual([
      "dropbox.com",
      "github.com",
      "service-one.test",
      "slack.com",
    ]);
    expect(second.stats).toEqual({
      total: 5,
      inVault: 0,
      notInVault: 5,
      oauthLikely: 0,
      dismissed: 1,
    });
    const all = byDomain(await list(user, "?include_dismissed=true"));
    expect(all["shopzilla.test"]).toMatchObject({
      id: first["shopzilla.test"].id,
      dismissed: true,
    });
    expect(all["github.com"].id).toBe(first["github.com"].id);
    expect(all["acme-widgets.com"]).toBeUndefined();
    // Un-dismiss through the original family's PATCH.
    const undo = await user.call("PATCH", "/api/discover-accounts", {
      body: { id: first["shopzilla.test"].id, dismissed: false },
    });
    expect(undo.status).toBe(200);
    expect((await list(user)).accounts.map((a) => a.domain)).toContain("shopzilla.test");
  });

  it("POST /api/accounts {email} scans only that mailbox and keeps the other's results", async () => {
    const user = await TestUser.create();
    const gh = await connectSource(user, "mailx", FIXTURE.slice(0, 2));
    const drop = await connectSource(user, "maily", [FIXTURE[8]]);
    expect((await scan(user)).accounts.map((a) => [a.domain, a.sourceEmail])).toEqual([
      ["dropbox.com", drop.email],
      ["github.com", gh.email],
    ]);
    await patchAccount(drop.handle, { messages: [FIXTURE[9]] });
    const only = await scan(user, { email: drop.email.toUpperCase() });
    expect(only.accounts.map((a) => a.domain)).toEqual(["github.com", "slack.com"]);
  });

  it("PATCH /api/accounts marks an account as in the vault and back", async () => {
    const user = await TestUser.create();
    await connectSource(user, "imap", FIXTURE.slice(0, 1));
    const [account] = (await scan(user)).accounts;
    const entry = await createEntry(user, { name: "Code", website: "example.org" });
    const on = await user.call("PATCH", "/api/accounts", {
      body: { id: account.id, vaultPasswordId: entry.id },
    });
    expect(
      ((await on.json()) as { account: { inVault: boolean; vaultPasswordId: string } }).account,
    ).toMatchObject({ inVault: true, vaultPasswordId: entry.id });
    const off = await user.call("PATCH", "/api/accounts", {
      body: { id: account.id, inVault: false },
    });
    expect(
      ((await off.json()) as { account: { inVault: boolean; vaultPasswordId: null } }).account,
    ).toMatchObject({ inVault: false, vaultPasswordId: null });
  });
});

describe("scan paging and concurrency", () => {
  const many = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      from: `Svc <hi@svc${i}.example>`,
      subject: "Welcome aboard",
      date: "2026-01-01T00:00:00Z",
    }));

  it("maily: follows @odata.nextLink past the first 100", async () => {
    const user = await TestUser.create();
    const { handle } = await connectSource(user, "maily", many(150));
    expect((await scan(user)).stats.total).toBe(150);
    const lists = (await accountReport(handle)).requests.filter((r) =>
      r.startsWith("GET /v1.0/me/messages?"),
    );
    expect(
      lists.filter((r) => r.includes("%24skiptoken=100") || r.includes("$skiptoken=100")),
    ).toHaveLength(1);
  });

  it("mailx: reads metadata ten at a time, not one by one and not all at once", async () => {
    const user = await TestUser.create();
    const { handle } = await connectSource(user, "mailx", many(40));
    await patchAccount(handle, { readDelayMs: 40 });
    expect((await scan(user)).stats.total).toBe(40);
    expect((await accountReport(handle)).maxInFlight).toBe(10);
  });
});

describe("add-to-vault", () => {
  it("creates placeholders (-1) for new domains, skips those in the vault, and delta sync sees them", async () => {
    const user = await TestUser.create();
    await createEntry(user, { name: "Files", website: "https://dropbox.com" });
    const { email } = await connectSource(user, "imap");
    await scan(user);
    const before = (await pull(user)).serverTimestamp;
    const res = await user.call("POST", "/api/accounts/add-to-vault", {
      body: {
        domains: ["github.com", "dropbox.com", "GitHub.com", "never-seen.test", "acme-widgets.com"],
      },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      success: true;
      created: { id: string; domain: string; name: string }[];
      skipped: { domain: string; reason: string }[];
    };
    expect(body.created.map((c) => [c.domain, c.name])).toEqual([
      ["github.com", "GitHub"],
      ["acme-widgets.com", "Acme-widgets"],
    ]);
    expect(body.skipped).toEqual([
      { domain: "dropbox.com", reason: "in_vault" },
      { domain: "never-seen.test", reason: "not_discovered" },
    ]);
    const row = await env.DB.prepare(
      "SELECT name, website, url, username, encryption_version, encrypted_data FROM passwords WHERE id = ?",
    )
      .bind(body.created[0].id)
      .first();
    expect(row).toMatchObject({
      name: "GitHub",
      website: "github.com",
      url: "https://github.com",
      username: email,
      encryption_version: -1,
    });
    const delta = await pull(user, before);
    expect(delta.changes.map((c) => c.id).sort()).toEqual(body.created.map((c) => c.id).sort());
    // The discovered accounts now point at the placeholders, and a unified rescan flags them as
    // likely OAuth sign-ins: username is the connected mailbox and there is no password (rule 7).
    const after = byDomain(await scan(user));
    expect(after["github.com"]).toMatchObject({
      inVault: true,
      vaultPasswordId: body.created[0].id,
      oauthLikely: true,
    });
    expect(after["dropbox.com"].oauthLikely).toBe(false);
    expect((await list(user)).stats).toEqual({
      total: 6,
      inVault: 3,
      notInVault: 3,
      oauthLikely: 2,
      dismissed: 0,
    });
    // Adding again skips them as in the vault.
    const again = (await (
      await user.call("POST", "/api/accounts/add-to-vault", { body: { domains: ["github.com"] } })
    ).json()) as typeof body;
    expect(again).toEqual({
      success: true,
      created: [],
      skipped: [{ domain: "github.com", reason: "in_vault" }],
    });
  });
});
