import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { server } from "./support/server";
import type { VaultKeys } from "../../core/crypto/crypto";
import { startLoginSite } from "../../test/support/login-site";
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
  extensionStatus,
  frameText,
  launchWithExtension,
  newProfile,
  openFillMenu,
  openPage,
  openPopup,
  pressInFrame,
  seedEntries,
} from "./support/extension";
import {
  isListing,
  startMaliciousServer,
  withRounds,
  type MaliciousServer,
  type Seen,
} from "./support/malicious-server";

// docs/decisions/crypto.md, "Crypto: the clients hold against a malicious server", the extension's part: the unpacked extension in real Chromium talks to the real worker
// only through a proxy that rewrites the API's answers as a compromised server could. For each
// attack the extension fills nothing it should not, and the secret never reaches the page.
const PASSPHRASE = "extension hostile passphrase";
const MAIL_SECRET = "dave-mail-secret-91c";
const BANK_SECRET = "frank-bank-secret-5d2";
const base = server().baseUrl;
let evil: MaliciousServer;
let site: Awaited<ReturnType<typeof startLoginSite>>;
let sitePort: string;
let user: Awaited<ReturnType<typeof newUser>>;
let keys: VaultKeys;
let context: BrowserContext;

type Row = {
  id: string;
  name: string;
  website: string | null;
  url: string | null;
  wrapped_item_key: string;
  encrypted_data: string;
};

const at = (host: string, path: string) => `http://${host}:${sitePort}${path}`;
const isMatch = (r: Seen) => r.method === "GET" && r.path === "/api/passwords/match";
const isPull = (r: Seen) => r.method === "GET" && r.path === "/api/passwords/sync";

/** Every entry-shaped object in an API answer (match list, listing, sync pull), rewritten by `fn`. */
function mapRows(body: unknown, fn: (row: Row) => Row): unknown {
  if (Array.isArray(body)) return body.map((x) => mapRows(x, fn));
  if (body && typeof body === "object") {
    const o = body as Record<string, unknown>;
    if (typeof o.id === "string" && typeof o.wrapped_item_key === "string")
      return fn(o as unknown as Row);
    return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, mapRows(v, fn)]));
  }
  return body;
}

const openLogin = (url: string) => openPage(context, url);

/** The extension looked, decided and offered nothing; no field holds a secret. */
async function offersNothing(page: Page, secret: string) {
  const menu = await openFillMenu(page);
  expect(await menu.locator("body").getAttribute("data-count")).toBe("0");
  expect(await page.getByLabel("Password").inputValue()).toBe("");
  expect(await page.content()).not.toContain(secret);
}

async function serverRows(): Promise<Map<string, Row>> {
  return (await (await apiAs(base, user.token)).entries()) as Map<string, Row>;
}

beforeAll(async () => {
  evil = await startMaliciousServer(base);
  site = await startLoginSite();
  sitePort = new URL(site.url).port;
  buildExtension(evil.base);
  user = await newUser("ext-hostile");
  keys = await deriveVaultKeys(PASSPHRASE, user.sub);
  await seedEntries(base, user, keys, [
    { name: "Test site", website: "site.test", username: "alice", password: "alice-site-pass" },
  ]);
  ({ context } = await launchWithExtension(newProfile(), evil.base));
  // The session comes from the web app, opened through the same hostile origin.
  const app = await context.newPage();
  await app.goto(evil.base);
  await signInThroughPage(app, user.token, PASSPHRASE);
  await app.close();
});

afterAll(async () => {
  await context?.close();
  await site?.close();
  await evil?.stop();
});

describe("the extension against a malicious server", () => {
  it("downgrades the key derivation at the first unlock: refused with the reason, nothing derived", async () => {
    evil.rewrite({
      when: isListing,
      json: (body: { data: Row[] }) => ({
        ...body,
        data: body.data.map((e) => ({
          ...e,
          wrapped_item_key: withRounds(e.wrapped_item_key, 1000),
        })),
      }),
    });
    const popup = await openPopup(context);
    try {
      await popup.getByLabel("Master passphrase").fill(PASSPHRASE);
      await popup.getByRole("button", { name: "Unlock" }).click();
      await expect
        .poll(() => popup.locator("#unlock-error").innerText())
        .toContain("weaker key derivation (PBKDF2 with 1000 rounds)");
      expect((await extensionStatus(popup)).unlocked).toBe(false);
      await screenshot(popup, "extension-malicious-kdf.png");
    } finally {
      evil.honest();
      await popup.close();
    }
    // The same unlock against the honest answer opens the vault: the refusal was the downgrade's.
    const honest = await openPopup(context);
    await honest.getByLabel("Master passphrase").fill(PASSPHRASE);
    await honest.getByRole("button", { name: "Unlock" }).click();
    await honest.locator("body[data-state=unlocked]").waitFor();
    await expect.poll(async () => (await extensionStatus(honest)).lastSync).not.toBeNull();
    await honest.close();
  });

  it("swaps two entries' blobs: neither is offered on either site, and honest they are", async () => {
    // The server lies from the moment the entries exist, so no honest copy reaches the extension's cache.
    let shop: Row | undefined;
    let mail: Row | undefined;
    const swap = (r: Row): Row =>
      !shop || !mail
        ? r
        : r.id === shop.id
          ? { ...r, wrapped_item_key: mail.wrapped_item_key, encrypted_data: mail.encrypted_data }
          : r.id === mail.id
            ? { ...r, wrapped_item_key: shop.wrapped_item_key, encrypted_data: shop.encrypted_data }
            : r;
    evil.rewrite({
      when: (r) => isMatch(r) || isPull(r) || isListing(r),
      json: (body) => mapRows(body, swap),
    });
    await seedEntries(base, user, keys, [
      { name: "Shop", website: "shop.test", username: "carol", password: "carol-shop-pass" },
      { name: "Mail", website: "mail.test", username: "dave", password: MAIL_SECRET },
    ]);
    const rows = await serverRows();
    shop = rows.get("Shop")!;
    mail = rows.get("Mail")!;
    try {
      const page = await openLogin(at("shop.test", "/login"));
      await offersNothing(page, MAIL_SECRET);
      await screenshot(page, "extension-malicious-swap.png");
      await page.close();
      const other = await openLogin(at("mail.test", "/login"));
      await offersNothing(other, "carol-shop-pass");
      await other.close();
    } finally {
      evil.honest();
    }
    const page = await openLogin(at("shop.test", "/login"));
    await pressInFrame(await openFillMenu(page), /Shop/);
    await expect.poll(() => page.getByLabel("Password").inputValue()).toBe("carol-shop-pass");
    expect(await page.getByLabel("Username").inputValue()).toBe("carol");
    await page.close();
  });

  it("moves another user's entry for this site into the match list: it is not offered", async () => {
    const other = await newUser("ext-hostile-other");
    const otherKeys = await deriveVaultKeys(PASSPHRASE, other.sub);
    await seedEntries(base, other, otherKeys, [
      { name: "Forum", website: "forum.test", username: "erin", password: "erin-forum-secret" },
    ]);
    const moved = ((await (await apiAs(base, other.token)).entries()) as Map<string, Row>).get(
      "Forum",
    )!;
    evil.rewrite({
      when: (r) => isMatch(r) && r.search.includes("forum.test"),
      json: (body: { matches: Row[] }) => ({ ...body, matches: [...body.matches, moved] }),
    });
    try {
      const page = await openLogin(at("forum.test", "/login"));
      await offersNothing(page, "erin-forum-secret");
      expect(evil.seen.some((r) => isMatch(r) && r.search.includes("forum.test"))).toBe(true);
      await page.close();
    } finally {
      evil.honest();
    }
  });

  it("points an entry at another site by rewriting its address: nothing is offered there", async () => {
    await seedEntries(base, user, keys, [
      { name: "Bank", website: "bank.test", username: "frank", password: BANK_SECRET },
    ]);
    // An honest copy in the extension's cache first (an unlock syncs), so both paths are attacked:
    // the cached copy and the server's answer.
    const popup = await openPopup(context);
    const before = (await extensionStatus(popup)).cached;
    await popup.evaluate(() => chrome.runtime.sendMessage({ type: "lock" }));
    expect(
      await popup.evaluate(
        (p) => chrome.runtime.sendMessage({ type: "unlock", passphrase: p }),
        PASSPHRASE,
      ),
    ).toMatchObject({ ok: true });
    await expect.poll(async () => (await extensionStatus(popup)).cached).toBeGreaterThan(before);
    await popup.close();
    const bank = (await serverRows()).get("Bank")!;
    // The entry as the server now claims it: for evil.test, with its genuine blob.
    const forged: Row = { ...bank, website: "evil.test", url: "http://evil.test/login" };
    evil.rewrite({
      when: (r) => isMatch(r) && r.search.includes("evil.test"),
      json: (body: { matches: Row[] }) => ({ ...body, matches: [...body.matches, forged] }),
    });
    evil.rewrite({
      when: (r) => isPull(r) || isListing(r),
      json: (body) =>
        mapRows(body, (r) =>
          r.id === bank.id ? { ...r, website: forged.website, url: forged.url } : r,
        ),
    });
    try {
      const page = await openLogin(at("evil.test", "/login"));
      await offersNothing(page, BANK_SECRET);
      expect(evil.seen.some((r) => isMatch(r) && r.search.includes("evil.test"))).toBe(true);
      await page.close();
    } finally {
      evil.honest();
    }
    // Its own site still gets it.
    const own = await openLogin(at("bank.test", "/login"));
    expect(await frameText(await openFillMenu(own))).toContain("Bank");
    await own.close();
  });
});
