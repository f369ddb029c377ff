import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiAs } from "./support/api";
import {
  automation,
  consentAs,
  deliverCheckMail,
  discoveryMailbox,
  patchProviderAccount,
  providerAccount,
} from "./support/automation";
import {
  launch,
  newUser,
  screenshot,
  signInThroughPage,
  type Browser,
  type BrowserContext,
  type Page,
} from "./support/browser";
import { base, openSection, personContext } from "./support/journey";
import { axeViolations } from "./support/pages";

// Mailboxes in real Chromium: OAuth through the local provider (Gmail- and Graph-shaped), IMAP
// against a real Dovecot, status, disconnect, and the disconnected notification's way back.
const PASSPHRASE = "mailboxes passphrase";
let browser: Browser;
let context: BrowserContext;
let page: Page;
let user: Awaited<ReturnType<typeof newUser>>;
let api: Awaited<ReturnType<typeof apiAs>>;

const row = (p: Page, email: string) =>
  p.locator("table.mailboxes tbody tr").filter({ hasText: email });
const listed = async () =>
  (
    (await api.get("/api/user-integrations")).body.integrations as {
      provider: string;
      email: string;
      status: string;
    }[]
  )
    .map((i) => `${i.provider}:${i.email}:${i.status}`)
    .sort();

beforeAll(async () => {
  browser = await launch();
  user = await newUser("mailboxes");
  ({ context, page } = await personContext(browser));
  await signInThroughPage(page, user.token, PASSPHRASE);
  api = await apiAs(base(), user.token);
});

afterAll(async () => {
  await browser?.close();
});

describe("mailboxes", () => {
  it.each(["mailx", "maily"] as const)(
    "connects a %s mailbox through the provider's consent and lists it as active",
    async (provider) => {
      const email = `${provider}-${Date.now()}@mail.example.test`;
      const account = await providerAccount(provider, email);
      await openSection(page, "Mailboxes");
      await consentAs(page, provider, account);
      await page
        .getByRole("button", {
          name:
            provider === "mailx"
              ? "Connect Mailx (Gmail-compatible)"
              : "Connect Maily (Graph-compatible)",
        })
        .click();
      await page.waitForURL((u) => u.pathname === "/mailboxes" && u.search === "");
      await expect.poll(() => page.locator(".notice").innerText()).toContain("connected.");
      await expect.poll(() => row(page, email).getAttribute("data-status")).toBe("active");
      await page.unrouteAll();
      await screenshot(page, `screenshots/mailboxes-${provider}-connected.png`);
      expect(await listed()).toContain(`${provider}:${email}:active`);
    },
  );

  it("a declined consent says so and connects nothing", async () => {
    const before = await listed();
    await page.getByRole("button", { name: "Connect Mailx (Gmail-compatible)" }).click();
    await page.waitForURL((u) => u.pathname === "/mailboxes" && u.search === "");
    await expect
      .poll(() => page.getByRole("alert").first().innerText())
      .toContain("you declined access at the provider");
    expect(await listed()).toEqual(before);
  });

  it("offers only the providers this deployment set up and says why another is missing", async () => {
    const connect = (name: string) => page.getByRole("button", { name });
    const hint = page.locator(".connect-providers .hint");
    // Every provider is set up in this suite's deployment: both are offered, no setup line.
    await page.goto("/mailboxes");
    await connect("Connect Maily (Graph-compatible)").waitFor();
    expect(await connect("Connect Mailx (Gmail-compatible)").isVisible()).toBe(true);
    expect(await hint.isVisible()).toBe(false);
    // Headings in order, down to axe-core's moderate findings.
    expect(
      await axeViolations(page, ["minor", "moderate", "serious", "critical"]).then((v) =>
        v.filter((f) => f.includes("heading-order")),
      ),
    ).toEqual([]);

    // The same server's answer as a deployment without Maily's settings would give it.
    await context.route("**/api/integrations/providers", async (route) => {
      const res = await route.fetch();
      const body = (await res.json()) as { providers: { provider: string; configured: boolean }[] };
      await route.fulfill({
        response: res,
        json: {
          providers: body.providers.map((p) =>
            p.provider === "maily" ? { ...p, configured: false } : p,
          ),
        },
      });
    });
    try {
      await page.goto("/mailboxes");
      await expect
        .poll(() => hint.innerText())
        .toBe(
          "Other providers need setup by the operator of this vault: Maily (Microsoft Graph-compatible). Until then, connect that mailbox over IMAP below.",
        );
      expect(await connect("Connect Mailx (Gmail-compatible)").isVisible()).toBe(true);
      expect(await connect("Connect Maily (Graph-compatible)").count()).toBe(0);
      expect(await page.getByRole("button", { name: "Connect IMAP mailbox" }).isVisible()).toBe(
        true,
      );
      await screenshot(page, "screenshots/mailboxes-provider-not-set-up.png");
    } finally {
      await context.unroute("**/api/integrations/providers");
    }
  });

  let imapBox: { user: string; password: string } | undefined;

  it("connects an IMAP mailbox; bad input gets a clear message and changes nothing", async () => {
    const box = await discoveryMailbox();
    const before = await listed();
    const form = page.locator("form.imap-form");
    await form.getByLabel("IMAP host").fill("127.0.0.1");
    await form.getByLabel("Port").fill("70000");
    await form.getByLabel("Use TLS").uncheck();
    await form.getByLabel("Username").fill(box.user);
    await form.getByLabel("App password").fill("wrong-password");
    await form.getByRole("button", { name: "Connect IMAP mailbox" }).click();
    await expect
      .poll(() => form.getByRole("alert").innerText())
      .toBe("The port is a whole number from 1 to 65535.");
    await form.getByLabel("Port").fill(String(automation().discoveryImap.port));
    await form.getByRole("button", { name: "Connect IMAP mailbox" }).click();
    await expect
      .poll(() => form.getByRole("alert").innerText(), { timeout: 20_000 })
      .toContain("IMAP login failed");
    await screenshot(page, "screenshots/mailboxes-imap-refused.png");
    expect(await listed()).toEqual(before);

    await form.getByLabel("App password").fill(box.password);
    await form.getByRole("button", { name: "Connect IMAP mailbox" }).click();
    // Connected, but the address is not proven yet: a check message was mailed to it.
    await expect
      .poll(() => row(page, box.user).getAttribute("data-status"), { timeout: 20_000 })
      .toBe("pending_verification");
    expect(await form.getByLabel("App password").inputValue()).toBe("");
    await expect
      .poll(() =>
        page
          .getByRole("status")
          .filter({ hasText: "the vault sent a check message there" })
          .count(),
      )
      .toBe(1);
    expect(await listed()).toContain(`imap:${box.user}:pending_verification`);
    imapBox = box;
  });

  it("the person finishes the IMAP mailbox check: too early says so; once the message has arrived the mailbox is active", async () => {
    const box = imapBox!;
    // Checked before the message is there: it says so, and nothing changes.
    await row(page, box.user)
      .getByRole("button", { name: `Check mailbox ${box.user}` })
      .click();
    await expect
      .poll(() => page.getByRole("alert").filter({ hasText: "has not arrived" }).count(), {
        timeout: 20_000,
      })
      .toBe(1);
    expect(await listed()).toContain(`imap:${box.user}:pending_verification`);
    await screenshot(page, "screenshots/mailboxes-imap-pending.png");
    // The check message arrives in the mailbox; the person checks again.
    await deliverCheckMail(box.user, "discovery");
    await row(page, box.user)
      .getByRole("button", { name: `Check mailbox ${box.user}` })
      .click();
    await expect
      .poll(() => row(page, box.user).getAttribute("data-status"), { timeout: 20_000 })
      .toBe("active");
    await expect
      .poll(() =>
        page
          .getByRole("status")
          .filter({ hasText: `${box.user} verified` })
          .count(),
      )
      .toBe(1);
    expect(await listed()).toContain(`imap:${box.user}:active`);

    await row(page, box.user)
      .getByRole("button", { name: `Disconnect ${box.user}` })
      .click();
    await expect.poll(() => row(page, box.user).count()).toBe(0);
    expect((await listed()).some((i) => i.startsWith("imap:"))).toBe(false);
  });

  it("a mailbox whose access ended shows as disconnected; its notification leads back here to reconnect", async () => {
    const email = `expired-${Date.now()}@mail.example.test`;
    const account = await providerAccount("mailx", email);
    await consentAs(page, "mailx", account);
    await page.getByRole("button", { name: "Connect Mailx (Gmail-compatible)" }).click();
    await expect.poll(() => row(page, email).getAttribute("data-status")).toBe("active");
    await page.unrouteAll();
    await patchProviderAccount(account, { refresh: "invalid_grant" });
    expect((await api.post("/api/integrations/mailx/refresh")).status).toBe(422);

    const { body } = await api.get("/api/notifications");
    const note = (body.notifications ?? body.data) as { type: string; action_url: string }[];
    const disconnected = note.find((n) => n.type === "integration_disconnected")!;
    expect(disconnected.action_url).toBe("/mailboxes");
    await page.goto(disconnected.action_url);
    await page.getByRole("heading", { level: 1, name: "Mailboxes" }).waitFor();
    await expect.poll(() => row(page, email).getAttribute("data-status")).toBe("disconnected");
    await screenshot(page, "screenshots/mailboxes-disconnected.png");

    await patchProviderAccount(account, { refresh: "ok" });
    await consentAs(page, "mailx", account);
    await row(page, email)
      .getByRole("button", { name: `Reconnect ${email}` })
      .click();
    await expect.poll(() => row(page, email).getAttribute("data-status")).toBe("active");
    await page.unrouteAll();
    await context.close();
  });
});
