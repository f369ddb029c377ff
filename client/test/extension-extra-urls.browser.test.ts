import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { server } from "./support/server";
import { type VaultKeys } from "../../core/crypto/crypto";
import { pageHostHashes } from "../../core/hosts/host-hashes";
import { startLoginSite } from "../../test/support/login-site";
import { apiAs } from "./support/api";
import { newUser, screenshot, signInThroughPage, type BrowserContext } from "./support/browser";
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
  startRelay,
} from "./support/extension";
import { openSection } from "./support/journey";

// An entry imported with two addresses is offered by the extension on the second one: from its
// synced copy (the opened entry's extra hosts), and by the server's match (the page's hashed hosts).
const PASSPHRASE = "extension passphrase";
const base = server().baseUrl;
let site: Awaited<ReturnType<typeof startLoginSite>>;
let relay: Awaited<ReturnType<typeof startRelay>>;
let user: Awaited<ReturnType<typeof newUser>>;
let keys: VaultKeys;
let context: BrowserContext;
let port: string;

const at = (host: string, path: string) => `http://${host}:${port}${path}`;

beforeAll(async () => {
  site = await startLoginSite();
  port = new URL(site.url).port;
  relay = await startRelay({ host: "127.0.0.1", port: Number(new URL(base).port) });
  buildExtension(relay.url);
  user = await newUser("extra-urls");
  keys = await deriveVaultKeys(PASSPHRASE, user.sub);
  await fetch(`${site.url}/register`, {
    method: "POST",
    body: JSON.stringify({ username: "nina", password: "nina-second-pass" }),
  });
  ({ context } = await launchWithExtension(newProfile(), base));
});

afterAll(async () => {
  await context?.close();
  await relay?.stop();
  await site?.close();
});

describe("an entry's extra addresses in the extension", () => {
  const second = () => at("login.second.test", "/login");

  it("imports a Bitwarden item with two addresses; the server finds it only by the second one's hashed host", async () => {
    const app = await context.newPage();
    await app.goto(base);
    await signInThroughPage(app, user.token, PASSPHRASE);
    const file = {
      encrypted: false,
      folders: [],
      items: [
        {
          type: 1,
          name: "Two sites",
          login: {
            username: "nina",
            password: "nina-second-pass",
            uris: [
              { uri: at("first.test", "/login"), match: null },
              { uri: at("login.second.test", "/login"), match: null },
            ],
          },
        },
      ],
    };
    await openSection(app, "Import & export");
    await app.getByLabel(/Export file from another password manager/).setInputFiles({
      name: "bitwarden.json",
      mimeType: "application/json",
      buffer: Buffer.from(JSON.stringify(file)),
    });
    await app.getByRole("button", { name: "Preview" }).click();
    await app.getByRole("button", { name: "Import 1 entry" }).click();
    await expect
      .poll(() => app.locator("#import-done").getAttribute("data-imported"), { timeout: 30_000 })
      .toBe("1");
    await app.close();

    // The server stores the second address's host only as a blind hash, which the page's hashes find.
    const api = await apiAs(base, user.token);
    const found = await api.get(
      `/api/passwords/match?url=${encodeURIComponent(second())}&host_hashes=${(await pageHostHashes(keys, second())).join(",")}`,
    );
    expect(found.body.matches.map((m: { name: string }) => m.name)).toEqual(["Two sites"]);
    expect(JSON.stringify(found.body)).not.toContain("second.test");
    const plain = await api.get(`/api/passwords/match?url=${encodeURIComponent(second())}`);
    expect(plain.body.matches).toEqual([]);
  });

  it("the extension offers and fills it on the second site, and nothing on a lookalike", async () => {
    const popup = await openPopup(context);
    await popup.getByLabel("Master passphrase").fill(PASSPHRASE);
    await popup.getByRole("button", { name: "Unlock" }).click();
    await expect
      .poll(async () => (await extensionStatus(popup)).cached, { timeout: 30_000 })
      .toBeGreaterThan(0);
    await popup.close();

    const page = await openPage(context, second());
    const menu = await openFillMenu(page);
    expect(await menu.locator("body").getAttribute("data-count")).toBe("1");
    expect(await frameText(menu)).toContain("Two sites");
    await screenshot(page, "extension-extra-address.png");
    await pressInFrame(menu, /Two sites/);
    await expect.poll(() => page.getByLabel("Password").inputValue()).toBe("nina-second-pass");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Welcome, nina" }).waitFor();
    await page.close();

    // A lookalike of the second site is offered nothing.
    const lookalike = await openPage(context, at("login.second.test.evil.test", "/login"));
    const none = await openFillMenu(lookalike);
    expect(await none.locator("body").getAttribute("data-count")).toBe("0");
    await lookalike.close();
  });
});
