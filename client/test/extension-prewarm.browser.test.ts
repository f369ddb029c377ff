import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { server } from "./support/server";
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
  extensionFrame,
  extensionFrames,
  launchWithExtension,
  newProfile,
  openPage,
  openPopup,
  pressInFrame,
  seedEntries,
  unlockInPopup,
} from "./support/extension";
import { startHostileSite } from "./support/hostile-site";
import { startMaliciousServer, type MaliciousServer } from "./support/malicious-server";

// The fill menu made ahead: as soon as a page has a login field the extension loads its menu
// frame hidden, inert and empty, and the person's click only shows it. These cases attack that
// hidden frame from the page (support/hostile-site.ts) and check that it holds nothing, takes no
// click, and that a page which removes, moves, exposes or covers it gets nothing.
const PASSPHRASE = "prewarm passphrase";
const SECRET = "alice-prewarm-secret-51c";
const base = server().baseUrl;
let evil: MaliciousServer;
let site: Awaited<ReturnType<typeof startHostileSite>>;
let context: BrowserContext;

const at = (host: string, path: string) => `http://${host}:${site.port}${path}`;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the page can see of the extension: its hosts (shown or not), what it heard, what it read from fields. */
const pageView = (page: Page) =>
  page.evaluate(() => {
    const w = window as unknown as { __stolen: string[]; __heard: string[]; __tries: number };
    const hosts = [...document.documentElement.children].filter(
      (e) => e !== document.head && e !== document.body && e.tagName === "DIV" && e.id !== "decoy",
    ) as HTMLElement[];
    return {
      hosts: hosts.map((h) => ({ inert: h.inert })),
      heard: w.__heard,
      stolen: w.__stolen,
      tries: w.__tries,
      html: document.documentElement.outerHTML,
      values: [...document.querySelectorAll("input")].map((i) => i.value),
    };
  });

async function nothingLeaked(page: Page) {
  const seen = await pageView(page);
  expect(seen.values).not.toContain(SECRET);
  expect(seen.stolen).not.toContain(SECRET);
  expect(seen.html).not.toContain(SECRET);
  expect(seen.html).not.toContain("Prewarm");
  return seen;
}

/** Extension frames that have drawn something (a body with a data-state). */
const drawn = async (page: Page) => {
  let n = 0;
  for (const f of extensionFrames(page))
    if (
      await f
        .locator("body[data-state]")
        .count()
        .catch(() => 0)
    )
      n++;
  return n;
};

/** A real click at a point of the page, repeated for `ms`. */
async function clicksAt(page: Page, x: number, y: number, ms: number) {
  const until = Date.now() + ms;
  while (Date.now() < until) await page.mouse.click(x, y);
}

const isMatch = (host: string) =>
  evil.seen.filter(
    (r) => r.method === "GET" && r.path === "/api/passwords/match" && r.search.includes(host),
  ).length;

beforeAll(async () => {
  evil = await startMaliciousServer(base);
  site = await startHostileSite();
  buildExtension(evil.base);
  const user = await newUser("ext-prewarm");
  await seedEntries(base, user, await deriveVaultKeys(PASSPHRASE, user.sub), [
    { name: "Prewarm", website: "hostile.test", username: "alice", password: SECRET },
  ]);
  ({ context } = await launchWithExtension(newProfile(), evil.base));
  const app = await context.newPage();
  await app.goto(evil.base);
  await signInThroughPage(app, user.token, PASSPHRASE);
  await app.close();
  await (await unlockInPopup(context, PASSPHRASE, 1)).close();
});

afterAll(async () => {
  await context?.close();
  await site?.close();
  await evil?.stop();
});

describe("the fill menu made ahead", () => {
  it("is made only on a page with a login field, hidden, and asks the server nothing before the click", async () => {
    const page = await openPage(context, at("login.hostile.test", "/account"));
    await pause(1000);
    expect(extensionFrames(page)).toHaveLength(0);
    expect((await pageView(page)).hosts).toHaveLength(0);
    // A sign-in form the page adds later gets its menu made ahead.
    await page.evaluate(() =>
      document.body.insertAdjacentHTML(
        "beforeend",
        `<form><label>Username <input name="username"></label><label>Password <input type="password" name="password"></label></form>`,
      ),
    );
    await expect.poll(() => extensionFrames(page).length).toBe(1);
    await page.goto(at("login.hostile.test", "/login"));
    await expect.poll(() => extensionFrames(page).length).toBe(1);
    await pause(500);
    const before = await nothingLeaked(page);
    expect(before.hosts).toEqual([{ inert: true }]);
    expect(before.heard).toEqual([]);
    expect(await drawn(page)).toBe(0);
    expect(isMatch("login.hostile.test")).toBe(0);
    // The person's click shows that very frame, which only now looks the page's matches up.
    const made = extensionFrames(page)[0]!;
    await page.getByLabel("Username").click();
    const menu = await extensionFrame(page);
    expect(menu).toBe(made);
    expect(await menu.locator("body").getAttribute("data-count")).toBe("1");
    expect(isMatch("login.hostile.test")).toBe(1);
    expect((await pageView(page)).hosts).toEqual([{ inert: false }]);
    await pressInFrame(menu, /Prewarm/);
    await expect.poll(() => page.getByLabel("Password").inputValue()).toBe(SECRET);
    // The press started the lookup and the frame's show used it: one press, one question to the server.
    expect(isMatch("login.hostile.test")).toBe(1);
    await page.close();
  });

  it("takes no click while hidden, even brought on screen by the page, and none in its first moments once shown", async () => {
    const page = await openPage(context, at("login.hostile.test", "/login?attack=expose"));
    await expect.poll(() => extensionFrames(page).length).toBe(1);
    await pause(600);
    const made = extensionFrames(page)[0]!;
    const box = (await (await made.frameElement()).boundingBox())!;
    // On screen and opaque by the page's stylesheet: the person clicks it again and again.
    expect(box.x).toBe(20);
    await clicksAt(page, box.x + 40, box.y + 30, 600);
    expect(await drawn(page)).toBe(0);
    expect(await made.locator("button").count()).toBe(0);
    expect((await nothingLeaked(page)).heard).toEqual([]);
    await screenshot(page, "extension-prewarm-exposed.png");
    // Opened by the person: the same frame draws; clicks in its first 250 ms count for nothing,
    // although the page has kept it on screen for long before.
    await page.getByLabel("Username").click();
    const menu = await extensionFrame(page);
    expect(menu).toBe(made);
    const item = (await menu.getByRole("menuitem", { name: /Prewarm/ }).boundingBox())!;
    // Each click is timed by the frame itself from when it drew (a loaded machine delays the
    // test's clicks): every one that arrives in the first 500 ms must be refused.
    await menu.evaluate(() =>
      addEventListener(
        "click",
        (e) =>
          (document.body.dataset.clickAfter = String(
            performance.timeOrigin + e.timeStamp - Number(document.body.dataset.readyAt),
          )),
        true,
      ),
    );
    const readyAt = Number(await menu.locator("body").getAttribute("data-ready-at"));
    let early = 0;
    let late = false;
    for (const until = Date.now() + 250; Date.now() < until && !late; ) {
      await menu.evaluate(
        () => (delete document.body.dataset.refused, delete document.body.dataset.clickAfter),
      );
      await page.mouse.click(item.x + 20, item.y + item.height / 2);
      const read = await menu
        .evaluate(() => ({
          after: document.body.dataset.clickAfter,
          refused: document.body.dataset.refused,
        }))
        .catch((e: unknown) => {
          if (!String(e).includes("detached")) throw e;
          return null;
        });
      if (read === null) {
        // The click filled and the menu closed before it could be read (a loaded machine delayed
        // the click past 500 ms): the menu was gone by now, so it must be 500 ms after it drew.
        expect(Date.now() - readyAt).toBeGreaterThanOrEqual(500);
        late = true;
        continue;
      }
      const { after, refused } = read;
      if (after === undefined) continue;
      late = Number(after) >= 500;
      if (late) continue;
      early++;
      expect(refused).toMatch(/^(too-soon|not-visible)$/);
    }
    expect(early).toBeGreaterThan(0);
    await pause(800);
    // A click that came after 500 ms may fill: it is the person's, on a menu shown long enough.
    if (!late) {
      await nothingLeaked(page);
      expect(await page.getByLabel("Password").inputValue()).toBe("");
    }
    // Shown long enough, the person's click fills.
    if (!(late && (await page.getByLabel("Password").inputValue()) === SECRET))
      await pressInFrame(await extensionFrame(page), /Prewarm/);
    await expect.poll(() => page.getByLabel("Password").inputValue()).toBe(SECRET);
    await page.close();
  });

  for (const [attack, what] of [
    ["unhide", "made not inert and restyled"],
    ["remove", "removed"],
    ["move", "moved into the page's body"],
  ] as const) {
    it(`${what} by the page, it gets nothing; the person's click opens a new menu`, async () => {
      const page = await openPage(context, at("login.hostile.test", `/login?attack=${attack}`));
      await expect.poll(async () => (await pageView(page)).tries).toBeGreaterThan(0);
      await pause(500);
      const ahead = extensionFrames(page);
      if (attack === "unhide") {
        const box = (await (await ahead[0]!.frameElement()).boundingBox())!;
        await clicksAt(page, box.x + 40, box.y + 30, 400);
      }
      expect(await drawn(page)).toBe(0);
      expect((await nothingLeaked(page)).heard).toEqual([]);
      await page.getByLabel("Username").click();
      const menu = await extensionFrame(page);
      expect(ahead).not.toContain(menu);
      for (const f of ahead)
        expect(f.isDetached() || !(await f.locator("body[data-state]").count())).toBe(true);
      await pressInFrame(menu, /Prewarm/);
      await expect.poll(() => page.getByLabel("Password").inputValue()).toBe(SECRET);
      await page.close();
    });
  }

  it("made before the vault was locked and unlocked again, it is replaced at the click and the menu still fills", async () => {
    const page = await openPage(context, at("login.hostile.test", "/login"));
    await expect.poll(() => extensionFrames(page).length).toBe(1);
    const ahead = extensionFrames(page)[0]!;
    // Locking forgets every menu's session; the frame made ahead cannot show anything of it.
    const popup = await openPopup(context);
    await popup.evaluate(() => chrome.runtime.sendMessage({ type: "lock" }));
    expect(
      await popup.evaluate(
        (p) => chrome.runtime.sendMessage({ type: "unlock", passphrase: p }),
        PASSPHRASE,
      ),
    ).toMatchObject({ ok: true });
    await popup.close();
    await page.getByLabel("Username").click();
    const menu = await extensionFrame(page);
    expect(menu).not.toBe(ahead);
    expect(ahead.isDetached()).toBe(true);
    expect(await menu.locator("body").getAttribute("data-count")).toBe("1");
    await pressInFrame(menu, /Prewarm/);
    await expect.poll(() => page.getByLabel("Password").inputValue()).toBe(SECRET);
    await page.close();
  });

  it("covered by the page from the moment it is made, it fills nothing once shown", async () => {
    const page = await openPage(context, at("login.hostile.test", "/login?attack=cover"));
    await expect.poll(async () => (await pageView(page)).tries).toBeGreaterThan(0);
    await page.getByLabel("Username").click({ force: true });
    const menu = await extensionFrame(page);
    await pause(1000);
    const item = (await menu.getByRole("menuitem", { name: /Prewarm/ }).boundingBox())!;
    await page.mouse.click(item.x + 20, item.y + item.height / 2);
    await pause(1000);
    await nothingLeaked(page);
    expect(await page.getByLabel("Password").inputValue()).toBe("");
    await screenshot(page, "extension-prewarm-covered.png");
    await page.close();
  });
});
