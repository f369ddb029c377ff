import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLoginSite } from "../../test/support/login-site";
import { apiAs } from "./support/api";
import { openEntryTool } from "./support/account";
import { signInWithEntries } from "./support/seed";
import {
  launch,
  newUser,
  screenshot,
  type Browser,
  type BrowserContext,
  type Page,
} from "./support/browser";
import { base, openSection, personContext } from "./support/journey";

// Sharing a logged-in session from an entry in real Chromium: wrangler dev's own Browser Rendering
// session logs in to a local site; the page shows the live status, the viewer link and controls.
const PASSPHRASE = "session shares passphrase";
let site: Awaited<ReturnType<typeof startLoginSite>>;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let api: Awaited<ReturnType<typeof apiAs>>;

const card = (p: Page) => p.locator(".session-share").first();
/** The person's account at the login site: in their vault from the start, registered by the test. */
const account = {
  username: `user-${randomBytes(4).toString("hex")}`,
  password: `Pw!${randomBytes(16).toString("hex")}`,
};

beforeAll(async () => {
  site = await startLoginSite();
  browser = await launch();
  const user = await newUser("session-shares");
  ({ context, page } = await personContext(browser));
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base() });
  await signInWithEntries(page, user, PASSPHRASE, [
    {
      name: "Shared site",
      url: `${site.url}/login`,
      username: account.username,
      password: account.password,
    },
  ]);
  api = await apiAs(base(), user.token);
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await site?.close();
});

describe("session shares", () => {
  it("shares a logged-in session from an entry: live status, viewer link, pause, resume, extend, revoke", async () => {
    expect(
      (await fetch(`${site.url}/register`, { method: "POST", body: JSON.stringify(account) }))
        .status,
    ).toBe(204);
    // The entry's tools are tabs of its detail, each mounted when its tab is opened.
    const tool = await openEntryTool(page, "Shared site", "session-share");

    // Bad input: a clear message, and nothing is created.
    await tool.getByLabel("Duration (minutes, 1–240)").fill("500");
    await tool.getByRole("button", { name: "Share a session of Shared site" }).click();
    await expect
      .poll(() => tool.getByRole("alert").innerText())
      .toBe("The duration is a whole number of minutes from 1 to 240.");
    expect(await tool.locator(".session-share").count()).toBe(0);

    await tool.getByLabel("Duration (minutes, 1–240)").fill("20");
    await tool.getByLabel("Viewers (1–10)").fill("2");
    await tool.getByLabel("Access").selectOption("full");
    await tool.getByRole("button", { name: "Share a session of Shared site" }).click();
    await expect
      .poll(() => card(page).getAttribute("data-status"), { timeout: 60_000 })
      .toBe("active");
    const id = (await card(page).getAttribute("data-share"))!;
    const link = await card(page)
      .getByLabel("Viewer link for Shared site", { exact: true })
      .inputValue();
    expect(link).toMatch(new RegExp(`^${base()}/s/[A-Za-z0-9_-]{20,}$`));
    expect(await card(page).innerText()).toContain("0 of 2 viewers · full control");
    await card(page).getByRole("button", { name: "Copy viewer link for Shared site" }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
    await screenshot(page, "screenshots/session-shares-active.png");
    expect((await api.get(`/api/session-shares/${id}`)).body.session).toMatchObject({
      status: "active",
      maxViewers: 2,
      accessType: "full",
      durationMinutes: 20,
    });

    // The same share, live, in the Session shares section.
    await openSection(page, "Session shares");
    const live = page.locator(`.session-share[data-share="${id}"]`);
    await live.getByRole("button", { name: "Pause" }).click();
    await expect.poll(() => live.getAttribute("data-status")).toBe("paused");
    expect((await api.get(`/api/session-shares/${id}`)).body.session.status).toBe("paused");
    await live.getByRole("button", { name: "Resume" }).click();
    await expect.poll(() => live.getAttribute("data-status")).toBe("active");
    await live.getByLabel("Extend by").selectOption("30");
    await live.getByRole("button", { name: "Extend" }).click();
    await expect
      .poll(async () => (await api.get(`/api/session-shares/${id}`)).body.session.durationMinutes)
      .toBe(50);
    await live.getByRole("button", { name: "Revoke" }).click();
    await expect.poll(() => live.getAttribute("data-status")).toBe("revoked");
    expect(await live.getByRole("button", { name: "Pause" }).isHidden()).toBe(true);
    await screenshot(page, "screenshots/session-shares-revoked.png");
    expect((await api.get(`/api/session-shares/${id}`)).body.session.status).toBe("revoked");
  }, 120_000);
});
