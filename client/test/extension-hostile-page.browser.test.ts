import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { server } from "./support/server";
import type { VaultKeys } from "../../core/crypto/crypto";
import { openEntry, placeOf } from "../../core/crypto/envelope";
import { apiAs } from "./support/api";
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
  frameText,
  launchWithExtension,
  newProfile,
  openFillMenu,
  openPage,
  openPopup,
  pressInFrame,
  seedEntries,
  unlockInPopup,
} from "./support/extension";
import { startHostileSite } from "./support/hostile-site";
import {
  isListing,
  isSyncPull,
  startMaliciousServer,
  type MaliciousServer,
  type Seen,
} from "./support/malicious-server";

// The hostile-page catalogue: the unpacked extension in real Chromium, the person's input as real
// (trusted) mouse and keyboard input, and pages on loopback whose own scripts attack the extension
// (support/hostile-site.ts). Each case ends by reading every field and the whole DOM of the page:
// no secret may be there. Where a refusal could be mistaken for a broken setup, the same UI then
// fills under the person's own, visible click.
const PASSPHRASE = "hostile page passphrase";
const SECRET = "alice-hostile-secret-7f1";
const CORP_SECRET = "corp-secret-22b";
const BANK_SECRET = "bank-secret-9e0";
const FLIP_SECRET = "flip-secret-4aa";
const ALL = [SECRET, CORP_SECRET, BANK_SECRET, FLIP_SECRET];
const base = server().baseUrl;
let evil: MaliciousServer;
let site: Awaited<ReturnType<typeof startHostileSite>>;
let user: Awaited<ReturnType<typeof newUser>>;
let keys: VaultKeys;
let context: BrowserContext;

const at = (host: string, path: string) => `http://${host}:${site.port}${path}`;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every field of every frame the page controls, its DOM, and what its script collected: none holds a secret. */
async function noSecretIn(page: Page, secrets = ALL) {
  for (const f of page.frames()) {
    if (f.url().startsWith("chrome-extension:")) continue;
    const seen = await f.evaluate(() => {
      const w = window as unknown as { __stolen?: string[] };
      const values = [...document.querySelectorAll("input")].map((i) => i.value);
      return { values, html: document.documentElement.outerHTML, stolen: w.__stolen ?? [] };
    });
    for (const s of secrets) {
      expect(seen.values).not.toContain(s);
      expect(seen.html).not.toContain(s);
      expect(seen.stolen).not.toContain(s);
    }
  }
}

const tries = (page: Page) =>
  page.evaluate(() => (window as unknown as { __tries: number }).__tries);

/** The person clicks, with the real mouse, where the named item of the menu is drawn (whatever the page made of it). */
async function clickWhereItIs(
  page: Page,
  menu: Awaited<ReturnType<typeof extensionFrame>>,
  name: RegExp,
  fromTop?: number,
) {
  const box = (await menu.getByRole("menuitem", { name }).boundingBox())!;
  await page.mouse.click(Math.max(box.x, 0) + 20, box.y + (fromTop ?? box.height / 2));
}

async function attacked(attack: string, host = "login.hostile.test") {
  const page = await openPage(context, at(host, `/login?attack=${attack}`));
  const menu = await openFillMenu(page);
  expect(await menu.locator("body").getAttribute("data-count")).toBe("1");
  return { page, menu };
}

const isMatch = (r: Seen) => r.method === "GET" && r.path === "/api/passwords/match";

beforeAll(async () => {
  evil = await startMaliciousServer(base);
  site = await startHostileSite();
  buildExtension(evil.base);
  user = await newUser("ext-hostile-page");
  keys = await deriveVaultKeys(PASSPHRASE, user.sub);
  await seedEntries(base, user, keys, [
    { name: "Hostile", website: "hostile.test", username: "alice", password: SECRET },
    { name: "Corp", website: "accounts.corp.test", username: "carl", password: CORP_SECRET },
    // Sealed before the scheme was (docs/crypto.md, version 2): its https is assumed, not vouched for, so an http page may be confirmed.
    {
      name: "Bank",
      website: "bank.test",
      url: "https://bank.test/login",
      username: "bea",
      password: BANK_SECRET,
      before: "scheme",
    },
  ]);
  ({ context } = await launchWithExtension(newProfile(), evil.base));
  const app = await context.newPage();
  await app.goto(evil.base);
  await signInThroughPage(app, user.token, PASSPHRASE);
  await app.close();
  // The first sync has brought the seeded entries into the extension's cache.
  await (await unlockInPopup(context, PASSPHRASE, 3)).close();
});

afterAll(async () => {
  await context?.close();
  await site?.close();
  await evil?.stop();
});

describe("the extension on a hostile page", () => {
  it("does not open its menu on its own, nor for a page's focus() or events", async () => {
    const page = await openPage(context, at("login.hostile.test", "/login"));
    await page.evaluate(() => {
      const f = document.querySelector<HTMLInputElement>("input[type=password]")!;
      f.focus();
      f.dispatchEvent(new PointerEvent("pointerdown", { bubbles: true }));
      f.dispatchEvent(new FocusEvent("focusin", { bubbles: true }));
    });
    await pause(800);
    // The menu made ahead at load stays hidden and empty: nothing is drawn before the person's click.
    for (const f of extensionFrames(page))
      expect(await f.locator("body[data-state]").count()).toBe(0);
    // The person's own click opens it, below the field, never over it.
    const menu = await openFillMenu(page, "Password");
    const field = (await page.getByLabel("Password").boundingBox())!;
    const frame = (await (await menu.frameElement()).boundingBox())!;
    expect(frame.y).toBeGreaterThanOrEqual(field.y + field.height);
    await page.close();
  });

  it("a programmatic click on every control it can reach fills nothing", async () => {
    const { page, menu } = await attacked("click");
    await pause(1500);
    expect(await tries(page)).toBeGreaterThan(10);
    expect(await menu.locator("body").getAttribute("data-state")).toBe("ready");
    await noSecretIn(page);
    await screenshot(page, "extension-hostile-click.png");
    // The person's own click still fills.
    await pressInFrame(menu, /Hostile/);
    await expect.poll(() => page.getByLabel("Password").inputValue()).toBe(SECRET);
    await page.close();
  });

  it("synthetic pointer and keyboard events and focus pulled into the frame fill nothing, nor does the person's Tab and Enter there", async () => {
    const { page, menu } = await attacked("events");
    await pause(1000);
    expect(await tries(page)).toBeGreaterThan(10);
    await noSecretIn(page);
    expect(await menu.locator("body").getAttribute("data-state")).toBe("ready");
    // The page keeps pulling focus into the frame while the person types: their Tab and Enter may land there.
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await pause(800);
    await noSecretIn(page);
    await page.close();
  });

  for (const [attack, what] of [
    ["opacity", "under an opacity-0 ancestor"],
    ["filter", "under a filter on the root element"],
    ["overlay", "under a decoy overlay that lets clicks through"],
    ["offscreen", "moved almost off-screen"],
    ["clipped", "clipped to a sliver"],
  ] as const) {
    it(`refuses a real click on the menu ${what}`, async () => {
      const { page, menu } = await attacked(attack);
      await pause(1000);
      expect(await tries(page)).toBeGreaterThan(0);
      await clickWhereItIs(page, menu, /Hostile/, attack === "clipped" ? 4 : undefined);
      // Refused by the frame or the content script, or not delivered to the frame at all by
      // Chromium (it drops input to cross-origin frames it judges unsafe): either way, nothing.
      await pause(1000);
      await noSecretIn(page);
      if (!menu.isDetached())
        expect(await menu.locator("body").getAttribute("data-state")).toBe("ready");
      await screenshot(page, `extension-hostile-${attack}.png`);
      await page.close();
    });
  }

  it("refuses a click in the first moments after the menu appears", async () => {
    const page = await openPage(context, at("login.hostile.test", "/login"));
    await page.getByLabel("Username").click();
    const menu = await extensionFrame(page);
    // The person's clicks land on the item from the moment it is drawn, for its first 250 ms
    // (Chromium itself sends some to the page below, which only opens the menu again).
    const box = (await menu.getByRole("menuitem", { name: /Hostile/ }).boundingBox())!;
    const until = Date.now() + 250;
    while (Date.now() < until) await page.mouse.click(box.x + 20, box.y + box.height / 2);
    await pause(1000);
    await noSecretIn(page);
    // Shown long enough, the same click fills (the early click may have opened the menu anew).
    await pressInFrame(await extensionFrame(page), /Hostile/);
    await expect.poll(() => page.getByLabel("Password").inputValue()).toBe(SECRET);
    await page.close();
  });

  it("offers nothing on a sibling subdomain of the entry's host, online and offline, and fills its own host and subdomains", async () => {
    const sibling = await openPage(context, at("evil.corp.test", "/login"));
    expect(await (await openFillMenu(sibling)).locator("body").getAttribute("data-count")).toBe(
      "0",
    );
    await noSecretIn(sibling);
    const parent = await openPage(context, at("corp.test", "/login"));
    expect(await (await openFillMenu(parent)).locator("body").getAttribute("data-count")).toBe("0");
    for (const host of ["accounts.corp.test", "eu.accounts.corp.test"]) {
      const own = await openPage(context, at(host, "/login"));
      await pressInFrame(await openFillMenu(own), /Corp/);
      await expect.poll(() => own.getByLabel("Password").inputValue()).toBe(CORP_SECRET);
      await own.close();
    }
    // Offline, from the extension's own index.
    const [worker] = context.serviceWorkers();
    await worker!.evaluate(() => chrome.storage.local.set({ appOrigin: "http://127.0.0.1:9" }));
    try {
      const off = await openPage(context, at("evil.corp.test", "/login"));
      expect(await (await openFillMenu(off)).locator("body").getAttribute("data-count")).toBe("0");
      await noSecretIn(off);
      const own = await openPage(context, at("accounts.corp.test", "/login"));
      const menu = await openFillMenu(own);
      expect(await frameText(menu)).toContain("(offline)");
      expect(await menu.locator("body").getAttribute("data-count")).toBe("1");
      await off.close();
      await own.close();
    } finally {
      await worker!.evaluate(() => chrome.storage.local.remove("appOrigin"));
    }
    await sibling.close();
    await parent.close();
  });

  it("an http page for an entry assumed https (sealed before its scheme was) cannot press the confirmation", async () => {
    const { page, menu } = await (async () => {
      const p = await openPage(context, at("bank.test", "/login?attack=click"));
      return { page: p, menu: await openFillMenu(p) };
    })();
    await pressInFrame(menu, /Bank/);
    await expect.poll(() => frameText(menu)).toContain("This page is not secure");
    await pause(1500);
    expect(await tries(page)).toBeGreaterThan(10);
    await noSecretIn(page);
    await screenshot(page, "extension-hostile-insecure-confirm.png");
    // The person's own confirmation fills.
    await pressInFrame(menu, "Fill anyway");
    await expect.poll(() => page.getByLabel("Password").inputValue()).toBe(BANK_SECRET);
    await page.close();
  });

  it("a malicious server that turns the entry's https into http: its envelope does not open, nothing is offered or filled on http", async () => {
    const flip = (body: unknown): unknown => {
      if (Array.isArray(body)) return body.map(flip);
      if (body && typeof body === "object") {
        const o = body as Record<string, unknown>;
        if (typeof o.url === "string" && o.url.startsWith("https://flip.test"))
          return { ...o, url: o.url.replace("https:", "http:") };
        return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, flip(v)]));
      }
      return body;
    };
    // The server lies from the moment the entry exists: the extension's cache holds only the flipped copy.
    evil.rewrite({ when: (r) => isMatch(r) || isSyncPull(r) || isListing(r), json: flip });
    try {
      await seedEntries(base, user, keys, [
        {
          name: "Flip",
          website: "flip.test",
          url: "https://flip.test/login",
          username: "fay",
          password: FLIP_SECRET,
        },
      ]);
      const popup = await openPopup(context);
      await popup.evaluate(() => chrome.runtime.sendMessage({ type: "lock" }));
      expect(
        await popup.evaluate(
          (p) => chrome.runtime.sendMessage({ type: "unlock", passphrase: p }),
          PASSPHRASE,
        ),
      ).toMatchObject({ ok: true });
      await expect
        .poll(
          async () =>
            (await popup.evaluate(() => chrome.runtime.sendMessage({ type: "status" }))).cached,
        )
        .toBe(4);
      await popup.close();
      const page = await openPage(context, at("flip.test", "/login"));
      const menu = await openFillMenu(page);
      // The version-3 envelope binds the https: the flipped row is not the entry's place, so it is not offered at all.
      expect(await menu.locator("body").getAttribute("data-count")).toBe("0");
      expect(await frameText(menu)).not.toContain("Flip");
      expect(evil.seen.some((r) => isMatch(r) && r.search.includes("flip.test"))).toBe(true);
      await page.bringToFront();
      const listed = await openPopup(context);
      await listed.locator("body[data-matches='0']").waitFor();
      await listed.close();
      await pause(300);
      await noSecretIn(page);
      await page.close();
    } finally {
      evil.honest();
    }
  });

  it("a page its site sandboxed (an opaque origin at the site's own address) gets no fill: not framed, not from the menu, not from the popup", async () => {
    // The same address unsandboxed is offered its sign-in: what refuses below is the sandbox.
    const plain = await openPage(context, at("login.hostile.test", "/login"));
    expect(await (await openFillMenu(plain)).locator("body").getAttribute("data-count")).toBe("1");
    await plain.close();

    const page = await openPage(context, at("login.hostile.test", "/login?sandbox&attack=click"));
    expect(await page.evaluate(() => window.origin)).toBe("null");
    await page.getByLabel("Username").click();
    await pause(1500);
    // The vault opened no menu session for it: whatever frame the content script made is gone.
    expect(extensionFrames(page)).toHaveLength(0);
    await page.bringToFront();
    const popup = await openPopup(context);
    await popup.locator("body[data-matches='1']").waitFor();
    await popup.getByRole("button", { name: "Fill Hostile alice" }).click();
    await expect.poll(() => popup.locator("#insecure").innerText()).toContain("Not filled");
    await popup.close();
    await pause(300);
    expect(await page.getByLabel("Password").inputValue()).toBe("");
    await noSecretIn(page);
    await page.close();

    const framed = await openPage(context, at("login.hostile.test", "/sandboxed-frame"));
    const inner = framed.frameLocator("#inner");
    await inner.getByLabel("Username").click();
    await pause(1500);
    expect(extensionFrames(framed)).toHaveLength(0);
    expect(await inner.getByLabel("Password").inputValue()).toBe("");
    await noSecretIn(framed);
    await framed.close();
  });

  it("a fill from the popup goes to the document it listed: after a navigation it fills nothing", async () => {
    const page = await openPage(context, at("login.hostile.test", "/login"));
    await page.bringToFront();
    const popup = await openPopup(context);
    await popup.locator("body[data-matches='1']").waitFor();
    // The tab moves on to another document (here of the same site) before the person clicks Fill.
    await page.goto(at("login.hostile.test", "/login?next"));
    await popup.getByRole("button", { name: "Fill Hostile alice" }).click();
    await expect.poll(() => popup.locator("#insecure").innerText()).toContain("navigated");
    await pause(300);
    await noSecretIn(page);
    await popup.close();
    await page.close();
  });

  it("offers to save only on the site where the sign-in was typed, never on the site the tab goes to next", async () => {
    const other = at("other.test", "/account?attack=click");
    const page = await openPage(
      context,
      at("login.hostile.test", `/login?to=${encodeURIComponent(other)}`),
    );
    await page.getByLabel("Username").fill("mallory-victim");
    await page.getByLabel("Password").fill("typed-secret-3c9");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/other\.test/);
    await pause(1500);
    expect(extensionFrames(page)).toHaveLength(0);
    expect(await page.content()).not.toContain("mallory-victim");
    // The submission was for that one next page: the site itself does not get it later either.
    await page.goto(at("login.hostile.test", "/account"));
    await pause(1000);
    expect(extensionFrames(page)).toHaveLength(0);
    await page.close();
  });

  it("a programmatic click on the save offer on the same site updates nothing; the person's click does", async () => {
    const again = await openPage(
      context,
      at("login.hostile.test", `/login?to=${encodeURIComponent("/account?attack=click")}`),
    );
    await again.getByLabel("Username").fill("alice");
    await again.getByLabel("Password").fill("alice-changed-5d1");
    await again.getByRole("button", { name: "Sign in" }).click();
    await again.waitForURL(/\/account\?attack=click/);
    const bar = await extensionFrame(again);
    expect(await frameText(bar)).toContain("Update the password of alice on login.hostile.test?");
    await pause(1500);
    expect(await tries(again)).toBeGreaterThan(10);
    expect(await bar.locator("body").getAttribute("data-state")).toBe("offered");
    expect(await again.content()).not.toContain("login.hostile.test?");
    const passwordOf = async () => {
      const rows = (await (await apiAs(base, user.token)).entries()) as Map<
        string,
        {
          id: string;
          website: string | null;
          url: string | null;
          wrapped_item_key: string;
          encrypted_data: string;
        }
      >;
      const row = rows.get("Hostile")!;
      return (await openEntry(keys, placeOf(user.sub, row), row)).secrets.password;
    };
    expect(await passwordOf()).toBe(SECRET);
    await pressInFrame(bar, "Update", "button");
    await expect.poll(() => bar.locator("body").getAttribute("data-state")).toBe("saved");
    await expect.poll(passwordOf).toBe("alice-changed-5d1");
    await again.close();
  });
});
