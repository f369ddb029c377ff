import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addEntryWithUrl,
  automation,
  connectResetMailbox,
  revealedPassword,
  revealEntry,
  siteAccount,
  siteLogin,
  trackedResets,
} from "./support/automation";
import {
  launch,
  newUser,
  screenshot,
  signInThroughPage,
  waitForPending,
  type Browser,
} from "./support/browser";
import { base, openSection, personContext } from "./support/journey";

// "Fix all" survives a closed tab: the queue (ids and outcomes, no password) is kept on the device;
// the person closes the page while the first reset runs, comes back to Vault health, reads
// "Fixing was interrupted: 2 left", resumes, and the summary counts both as fixed. The reset that
// was under way is followed to its end rather than started again: the reset site changed the
// password exactly twice.
const PASSPHRASE = "fix all resume passphrase 1";
const EXPOSED = "autumn2017";
const WEAK = "spring2016";
let browser: Browser;

const resetsAtSite = async (): Promise<number> =>
  ((await (await fetch(`${automation().resetSite}/__test/stats`)).json()) as { resets: number })
    .resets;

beforeAll(async () => {
  await fetch(`${automation().pwnedRangeUrl}/__control/hashes`, {
    method: "POST",
    body: JSON.stringify({ passwords: [EXPOSED], count: 9 }),
  });
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
});

describe("vault health: fix all after a closed tab", () => {
  it("offers the interrupted queue again, follows the reset under way and resets only what is left", async () => {
    const resettable = automation().resetImap.users[4]!;
    await siteAccount(resettable, EXPOSED);
    const user = await newUser("fix-resume");
    const { context, page } = await personContext(browser);
    await signInThroughPage(page, user.token, PASSPHRASE);
    await connectResetMailbox(base(), user.token, resettable);
    await addEntryWithUrl(page, {
      name: "Reset site",
      url: `${automation().resetSite}/login`,
      username: resettable,
      password: EXPOSED,
    });
    await addEntryWithUrl(page, {
      name: "Quiet site",
      url: `${automation().resetSite}/forgot-password`,
      username: resettable,
      password: WEAK,
    });
    await waitForPending(page, 0);
    const resetsBefore = await resetsAtSite();

    await openSection(page, "Vault health");
    const start = page
      .locator(".health-fix-all")
      .getByRole("button", { name: "Fix all that can be fixed (2)" });
    await start.waitFor({ timeout: 90_000 });
    await start.click();
    // The first reset has started on the server (this device tracks its task): the tab closes.
    await expect.poll(() => trackedResets(page), { timeout: 60_000 }).toHaveLength(1);
    await page.close();

    const again = await context.newPage();
    await again.goto("/");
    await openSection(again, "Vault health");
    const panel = again.locator(".health-fix-all");
    const notice = panel.locator(".health-fix-interrupted");
    await notice.getByText("Fixing was interrupted: 2 left.").waitFor({ timeout: 90_000 });
    await screenshot(again, "screenshots/health-fix-all-interrupted.png");
    await notice.getByRole("button", { name: "Resume" }).click();

    const summary = panel.locator(".health-fix-summary");
    await summary.locator('[data-count="fixed"]').waitFor({ timeout: 300_000 });
    expect(await summary.locator('[data-count="fixed"]').innerText()).toBe("Fixed: 2");
    expect(await summary.locator('[data-count="failed"]').innerText()).toBe("Failed: 0");
    await screenshot(again, "screenshots/health-fix-all-resumed.png");
    // Nothing done twice: one password change per entry at the site.
    expect((await resetsAtSite()) - resetsBefore).toBe(2);
    // The queue is gone once it ended: the next visit offers nothing.
    await again.reload();
    await openSection(again, "Vault health");
    await panel
      .getByRole("button", { name: /Fix all that can be fixed/ })
      .waitFor({ timeout: 90_000 });
    expect(await notice.isVisible()).toBe(false);
    // The last reset's password is the site's: the entry holds it.
    await openSection(again, "Vault");
    await revealEntry(again, "Quiet site");
    const fresh = await revealedPassword(again);
    expect(fresh).not.toBe(WEAK);
    expect(await siteLogin(resettable, fresh)).toBe(200);
    await revealEntry(again, "Reset site");
    expect(await revealedPassword(again)).not.toBe(EXPOSED);
    await context.close();
  }, 600_000);
});
