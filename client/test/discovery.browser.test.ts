import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiAs } from "./support/api";
import { signInWithEntries } from "./support/seed";
import {
  automation,
  connectImapMailbox,
  discoveryMailbox,
  revealEntry,
} from "./support/automation";
import {
  entryNames,
  launch,
  newUser,
  revealedField,
  screenshot,
  waitForPending,
  type Browser,
  type BrowserContext,
  type Page,
} from "./support/browser";
import { base, openSection, personContext } from "./support/journey";

// Account discovery in real Chromium against a real Dovecot: scan with progress, grouped list with
// in-vault markers, dismiss and restore, add to the vault (placeholders encrypted by this client).
const PASSPHRASE = "discovery passphrase";
const MAIL = [
  {
    from: "GitHub <noreply@github.com>",
    subject: "Welcome to GitHub, octo!",
    date: "2026-01-10T09:00:00Z",
  },
  {
    from: "Acme Widgets <no-reply@mail.acme-widgets.com>",
    subject: "Please verify your email address",
    date: "2026-02-02T08:00:00Z",
  },
  {
    from: "Dropbox <no-reply@dropbox.com>",
    subject: "Password reset requested",
    date: "2026-02-08T08:00:00Z",
  },
  {
    from: "Slack <feedback@slack.com>",
    subject: "Security alert: new login to your workspace",
    date: "2026-02-09T08:00:00Z",
  },
  {
    from: "Random Co <hello@random-co.test>",
    subject: "Lunch on Friday?",
    date: "2026-02-07T08:00:00Z",
  },
];
let browser: Browser;
let context: BrowserContext;
let page: Page;
let api: Awaited<ReturnType<typeof apiAs>>;
let mailbox: { user: string; password: string };

const found = (p: Page, domain: string) => p.locator(`ul.discovered li[data-domain="${domain}"]`);

beforeAll(async () => {
  browser = await launch();
  const user = await newUser("discovery");
  ({ context, page } = await personContext(browser));
  // GitHub is in the vault before the scan: the scan marks it so.
  await signInWithEntries(page, user, PASSPHRASE, [
    { name: "GitHub", website: "github.com", username: "octo", password: "pw-gh" },
  ]);
  api = await apiAs(base(), user.token);
  mailbox = await discoveryMailbox(MAIL);
  await connectImapMailbox(api, "discovery", { ...mailbox, port: automation().discoveryImap.port });
});

afterAll(async () => {
  await browser?.close();
});

describe("account discovery", () => {
  it("scans with a progress indication and lists services grouped, marking what is in the vault", async () => {
    await openSection(page, "Account discovery");
    await page.locator(".scan-progress").evaluate((node) => {
      new MutationObserver(() => {
        if (!(node as HTMLElement).hidden)
          (window as unknown as { sawProgress: boolean }).sawProgress = true;
      }).observe(node, { attributes: true });
    });
    await page.getByRole("button", { name: "Scan mailboxes" }).click();
    await expect
      .poll(() => page.locator(".notice").innerText(), { timeout: 30_000 })
      .toContain("Scan finished: 4 services found, 3 not in your vault.");
    expect(
      await page.evaluate(() => (window as unknown as { sawProgress?: boolean }).sawProgress),
    ).toBe(true);
    expect(await page.locator(".scan-progress").isHidden()).toBe(true);
    expect(await found(page, "github.com").getAttribute("data-in-vault")).toBe("true");
    expect(await found(page, "github.com").locator(".badge").innerText()).toBe("In vault");
    for (const d of ["acme-widgets.com", "dropbox.com", "slack.com"])
      expect(await found(page, d).getAttribute("data-in-vault")).toBe("false");
    expect(await found(page, "random-co.test").count()).toBe(0);
    // Grouped: every service sits in a category section with its heading.
    expect(
      await page.locator(".discovery-groups section[data-category] h3").count(),
    ).toBeGreaterThanOrEqual(1);
    expect(await found(page, "github.com").locator("input[type=checkbox]").isDisabled()).toBe(true);
    await screenshot(page, "screenshots/discovery-scanned.png");
  });

  it("dismisses a service out of the list and restores it", async () => {
    await found(page, "acme-widgets.com")
      .getByRole("button", { name: /^Dismiss / })
      .click();
    await expect.poll(() => found(page, "acme-widgets.com").count()).toBe(0);
    expect(
      (await api.get("/api/accounts")).body.accounts.map((a: { domain: string }) => a.domain),
    ).not.toContain("acme-widgets.com");
    await page.getByLabel("Show dismissed").check();
    await expect
      .poll(() => found(page, "acme-widgets.com").getAttribute("data-dismissed"))
      .toBe("true");
    await screenshot(page, "screenshots/discovery-dismissed.png");
    await found(page, "acme-widgets.com")
      .getByRole("button", { name: /^Restore / })
      .click();
    await expect
      .poll(() => found(page, "acme-widgets.com").getAttribute("data-dismissed"))
      .toBe("false");
    await page.getByLabel("Show dismissed").uncheck();
    await expect.poll(() => found(page, "acme-widgets.com").count()).toBe(1);
  });

  it("adds selected services to the vault; the placeholders are encrypted by the client at once", async () => {
    expect(await page.getByRole("button", { name: "Add selected to vault" }).isDisabled()).toBe(
      true,
    );
    await found(page, "dropbox.com").locator("input[type=checkbox]").check();
    await found(page, "slack.com").locator("input[type=checkbox]").check();
    await page.getByRole("button", { name: "Add selected to vault" }).click();
    await expect
      .poll(() => page.locator(".notice").innerText(), { timeout: 30_000 })
      .toMatch(/^Added 2 entries to the vault/);
    await expect.poll(() => found(page, "dropbox.com").getAttribute("data-in-vault")).toBe("true");
    await screenshot(page, "screenshots/discovery-added.png");

    await openSection(page, "Vault");
    await waitForPending(page, 0);
    await expect
      .poll(() => entryNames(page))
      .toEqual(expect.arrayContaining(["GitHub", "Dropbox", "Slack"]));
    // What the server holds: V3 envelopes written by this client, no placeholder left.
    await expect
      .poll(async () =>
        [...(await api.entries()).values()].map((e) => `${e.name}:${e.encryption_version}`).sort(),
      )
      .toEqual(["Dropbox:3", "GitHub:3", "Slack:3"]);
    const dropbox = (await api.entries()).get("Dropbox");
    expect(dropbox.wrapped_item_key).toBeTruthy();
    expect(dropbox.username ?? null).toBeNull();
    await revealEntry(page, "Dropbox");
    expect(await revealedField(page, "username")).toBe(mailbox.user);
    await context.close();
  });
});
