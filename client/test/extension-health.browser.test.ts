import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { server } from "./support/server";
import { startLoginSite } from "../../test/support/login-site";
import { automation } from "./support/automation";
import {
  newUser,
  screenshot,
  signInThroughPage,
  type BrowserContext,
  type Page,
} from "./support/browser";
import {
  buildExtension,
  deriveVaultKeys,
  extensionFrames,
  extensionStatus,
  frameText,
  launchWithExtension,
  newProfile,
  openFillMenu,
  openPage,
  openPopup,
  pressInFrame,
  seedEntries,
  startRelay,
  unlockInPopup,
} from "./support/extension";

// The extension warns when it fills a password that is exposed (the Pwned Passwords stand-in lists
// its hash) or reused (another entry of the synced copy holds it), in its own frame or popup, and
// fills all the same; a clean password fills with no word. What left the browser for the range:
// five-character prefixes, nothing else.
const PASSPHRASE = "extension health passphrase";
const P = {
  exposed: "Lx5@nV9!cB3#tK7%-ext",
  reused: "Qz8!rT4#mW6&yP2$-ext",
  clean: "Vb7^gH2*eN5(kL9)-ext",
};
const sha1 = (s: string) => createHash("sha1").update(s, "utf8").digest("hex").toUpperCase();
const base = server().baseUrl;
let site: Awaited<ReturnType<typeof startLoginSite>>;
let relay: Awaited<ReturnType<typeof startRelay>>;
let context: BrowserContext;
let sitePort: string;
let requestsBefore = 0;

type RangeRequest = { path: string; padding: string | null };
const rangeRequests = async (): Promise<RangeRequest[]> =>
  (
    (await (await fetch(`${automation().pwnedRangeUrl}/__control/requests`)).json()) as {
      requests: RangeRequest[];
    }
  ).requests;
const at = (host: string) => `http://${host}:${sitePort}/login`;

/** The person opens the menu in the page's username field and picks `name`: the page is filled, and the frame that stays (or not) is returned. */
async function pickInMenu(page: Page, name: RegExp, password: string) {
  const menu = await openFillMenu(page);
  await pressInFrame(menu, name);
  await expect.poll(() => page.getByLabel("Password").inputValue()).toBe(password);
  return menu;
}

beforeAll(async () => {
  await fetch(`${automation().pwnedRangeUrl}/__control/hashes`, {
    method: "POST",
    body: JSON.stringify({ passwords: [P.exposed], count: 1234 }),
  });
  requestsBefore = (await rangeRequests()).length;
  site = await startLoginSite();
  sitePort = new URL(site.url).port;
  relay = await startRelay({ host: "127.0.0.1", port: Number(new URL(base).port) });
  buildExtension(relay.url);
  const user = await newUser("ext-health");
  const keys = await deriveVaultKeys(PASSPHRASE, user.sub);
  await seedEntries(base, user, keys, [
    { name: "Leaky forum", website: "leaky.test", username: "ann", password: P.exposed },
    { name: "Shop A", website: "shop-a.test", username: "ann", password: P.reused },
    { name: "Shop B", website: "shop-b.test", username: "ann", password: P.reused },
    { name: "Fine bank", website: "bank.test", username: "ann", password: P.clean },
  ]);
  ({ context } = await launchWithExtension(newProfile(), base));
  const app = await context.newPage();
  await app.goto(base);
  await signInThroughPage(app, user.token, PASSPHRASE);
  await app.close();
  const popup = await unlockInPopup(context, PASSPHRASE, 4);
  // The reuse count covers the whole synced copy once its background pass has run.
  while (!(await extensionStatus(popup)).healthReady) await new Promise((r) => setTimeout(r, 100));
  await popup.close();
});

afterAll(async () => {
  await context?.close();
  await relay?.stop();
  await site?.close();
});

describe("fill warnings in the extension", () => {
  it("fills an exposed password and says so in its own frame, with a link to Vault health", async () => {
    const page = await openPage(context, at("leaky.test"));
    const menu = await pickInMenu(page, /Leaky forum/, P.exposed);
    await menu.locator("body[data-warning]").waitFor();
    expect(await menu.locator("body").getAttribute("data-warning")).toBe("exposed");
    expect(await frameText(menu)).toContain(
      "this password appeared in a data breach (seen 1,234 times)",
    );
    expect(await menu.getByRole("link", { name: "Open Vault health" }).getAttribute("href")).toBe(
      new URL("/health", relay.url).href,
    );
    await screenshot(page, "extension-fill-warning-exposed.png");
    // Only the frame says it: nothing of the warning is in the page's DOM.
    expect(await page.content()).not.toContain("breach");
    // OK removes the extension's frame from the page. A mouse click there waits for the input's
    // acknowledgement from that out-of-process frame, which it removes as it acts on the click:
    // once the click hung until its 30 s timeout after "performing click action". The click
    // event is dispatched in the frame instead; what it does is the subject here, not the mouse.
    await menu.getByRole("button", { name: "OK" }).dispatchEvent("click");
    await expect.poll(() => menu.isDetached()).toBe(true);
    expect(await page.getByLabel("Password").inputValue()).toBe(P.exposed);
    await page.close();
  });

  it("fills a reused password and names how many other entries hold it", async () => {
    const page = await openPage(context, at("shop-a.test"));
    const menu = await pickInMenu(page, /Shop A/, P.reused);
    await menu.locator("body[data-warning]").waitFor();
    expect(await menu.locator("body").getAttribute("data-warning")).toBe("reused");
    expect(await frameText(menu)).toContain("this password is also used by 1 other entry");
    await page.close();
  });

  it("fills a clean password with no warning: the menu closes", async () => {
    const page = await openPage(context, at("bank.test"));
    const menu = await pickInMenu(page, /Fine bank/, P.clean);
    await expect.poll(() => menu.isDetached()).toBe(true);
    for (const f of extensionFrames(page))
      expect(await f.locator("body[data-warning]").count()).toBe(0);
    await page.close();
  });

  it("warns in the popup when the popup fills an exposed password, and fills", async () => {
    const page = await openPage(context, at("leaky.test"));
    const popup = await openPopup(context);
    await popup.locator("body[data-matches='1']").waitFor();
    await popup.getByRole("button", { name: "Fill Leaky forum ann" }).click();
    await expect.poll(() => page.getByLabel("Password").inputValue()).toBe(P.exposed);
    await popup.locator("body[data-warning=exposed]").waitFor();
    expect(await popup.locator("#fill-warning").innerText()).toContain("appeared in a data breach");
    await screenshot(popup, "extension-fill-warning-popup.png");
    await popup.close();
    await page.close();
  });

  it("sent only five-character prefixes for the ranges, padded, each once", async () => {
    const ours = new Set(Object.values(P).map((p) => sha1(p).slice(0, 5)));
    // What left the browser: the relay in front of the worker hears every request of the extension.
    const ranges = relay.heard().filter((h) => h.line.includes("/breach/"));
    expect(ranges.length).toBeGreaterThan(0);
    for (const h of ranges) expect(h.line).toMatch(/^GET \/api\/breach\/range\/[0-9A-F]{5}$/);
    const asked = ranges.map((h) => h.line.slice(-5));
    expect(new Set(asked)).toEqual(ours);
    // Cached per prefix: the exposed password was listed three times and asked once.
    expect(asked.length).toBe(ours.size);
    // What reached the stand-in: prefixes, with Add-Padding; never more of a hash.
    const all = await rangeRequests();
    const upstream = all.slice(requestsBefore);
    for (const r of upstream) {
      expect(r.path).toMatch(/^\/range\/[0-9A-F]{5}$/);
      expect(r.padding).toBe("true");
    }
    // Each prefix reached the stand-in during this run: before this file when another file of the
    // suite (one worker for all) asked the same prefix and the worker answers it from its cache.
    for (const prefix of ours) expect(all.map((r) => r.path)).toContain(`/range/${prefix}`);
    // No full hash or suffix of a password went anywhere the relay saw.
    for (const p of Object.values(P))
      expect(relay.heard().some((h) => h.line.includes(sha1(p).slice(5)))).toBe(false);
  });
});
