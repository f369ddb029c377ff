import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  automation,
  connectResetMailbox,
  revealedPassword,
  revealEntry,
  siteAccount,
  siteLogin,
  trackedResets,
} from "./support/automation";
import { launch, newUser, screenshot, type Browser } from "./support/browser";
import { signInWithEntries } from "./support/seed";
import { base, openSection, personContext } from "./support/journey";

// "Fix all that can be fixed" on the health page, in real Chromium against wrangler dev, the local
// reset site and a real Dovecot: a vault with an exposed password on a site the automation can
// reset (its username a connected mailbox), the same password on a shop it cannot, and a weak one
// on a second resettable entry. The queue resets the exposed one first (the entry then holds a new
// password the site accepts) while the person pauses the queue, which holds the second; the person
// then cancels, the second is never started, and the summary says what was fixed, cancelled and
// what needs the person.
const PASSPHRASE = "fix all passphrase 1";
const EXPOSED = "summer2019";
const WEAK = "winter2018";
let browser: Browser;

beforeAll(async () => {
  await fetch(`${automation().pwnedRangeUrl}/__control/hashes`, {
    method: "POST",
    body: JSON.stringify({ passwords: [EXPOSED], count: 5 }),
  });
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
});

describe("vault health: fix all", () => {
  it("resets what the automation can, one at a time, with pause, cancel and a summary; the rest need the person", async () => {
    const resettable = automation().resetImap.users[0]!;
    await siteAccount(resettable, EXPOSED);
    const user = await newUser("fix-all");
    const { context, page } = await personContext(browser);
    await signInWithEntries(page, user, PASSPHRASE, [
      {
        name: "Reset site",
        url: `${automation().resetSite}/login`,
        username: resettable,
        password: EXPOSED,
      },
      {
        name: "Quiet site",
        url: `${automation().resetSite}/forgot-password`,
        username: resettable,
        password: WEAK,
      },
      {
        name: "Manual shop",
        website: "shop.example",
        username: "ann",
        password: EXPOSED,
      },
    ]);
    await connectResetMailbox(base(), user.token, resettable);

    await openSection(page, "Vault health");
    const panel = page.locator(".health-fix-all");
    const start = panel.getByRole("button", { name: "Fix all that can be fixed (2)" });
    await start.waitFor({ timeout: 90_000 });
    await start.click();
    const row = (name: string) =>
      panel
        .locator(".health-queue > li")
        .filter({ has: page.getByRole("link", { name, exact: true }) });
    // The exposed one goes first, and only one runs at a time.
    await expect.poll(() => row("Reset site").getAttribute("data-state")).toBe("running");
    expect(await row("Quiet site").getAttribute("data-state")).toBe("waiting");
    await screenshot(page, "screenshots/health-fix-all-running.png");
    // Paused: the reset under way finishes, the next is held until Resume.
    await panel.getByRole("button", { name: "Pause", exact: true }).click();
    await row("Reset site").and(page.locator('[data-state="fixed"]')).waitFor({ timeout: 180_000 });
    expect(await row("Reset site").locator(".reason").innerText()).toBe(
      "Fixed: new password saved",
    );
    // The queue moves on in the same task that marks a row fixed, so the next row shows whether it was held.
    expect(await row("Quiet site").getAttribute("data-state")).toBe("waiting");
    expect(await panel.getByRole("status").innerText()).toContain("Paused");
    // Cancel while paused: the held reset is never started.
    await panel.getByRole("button", { name: "Cancel", exact: true }).click();
    await row("Quiet site")
      .and(page.locator('[data-state="cancelled"]'))
      .waitFor({ timeout: 30_000 });
    expect(await row("Quiet site").locator(".reason").innerText()).toBe("Not started: cancelled");
    expect(
      await panel.getByRole("progressbar", { name: "Fix all progress" }).getAttribute("value"),
    ).toBe("1");

    const summary = panel.locator(".health-fix-summary");
    await summary.waitFor();
    expect(await summary.locator('[data-count="fixed"]').innerText()).toBe("Fixed: 1");
    expect(await summary.locator('[data-count="cancelled"]').innerText()).toBe("Cancelled: 1");
    expect(await summary.locator('[data-count="manual"]').innerText()).toBe("Needs you: 1");
    expect(await summary.innerText()).toContain("Manual shop: change it at shop.example");
    // The re-check after the queue: the fixed entry is no longer exposed, the shop still is.
    await expect
      .poll(() => page.locator("#health-exposed li .name a").allInnerTexts(), { timeout: 90_000 })
      .toEqual(["Manual shop"]);
    await screenshot(page, "screenshots/health-fix-all-summary.png");

    await openSection(page, "Vault");
    await revealEntry(page, "Reset site");
    const fresh = await revealedPassword(page);
    expect(fresh).not.toBe(EXPOSED);
    expect(await siteLogin(resettable, fresh)).toBe(200);
    expect(await siteLogin(resettable, EXPOSED)).toBe(401);
    await revealEntry(page, "Quiet site");
    expect(await revealedPassword(page)).toBe(WEAK);
    // One reset task in all: the cancelled one never reached the server.
    expect(await trackedResets(page)).toEqual([]);
    await context.close();
  }, 420_000);
});
