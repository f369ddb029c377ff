import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { server } from "./support/server";
import { startWebAuthnRp } from "../../test/support/webauthn-rp";
import { base64url } from "../../src/kernel/base64";
import type { EntrySecrets, VaultKeys } from "../../core/crypto/crypto";
import { openEntry as openEnvelope, placeOf } from "../../core/crypto/envelope";
import { apiAs } from "./support/api";
import {
  newUser,
  openEntry,
  screenshot,
  signInThroughPage,
  type BrowserContext,
  type Page,
} from "./support/browser";
import {
  buildExtension,
  deriveVaultKeys,
  extensionFrame,
  frameText,
  launchWithExtension,
  newProfile,
  openPage,
  openPopup,
  pressInFrame,
  seedEntries,
  signedInWithExtension,
  unlockInPopup,
} from "./support/extension";
import { stateFiles } from "./support/storage";

// Passkeys through the extension, in real Chromium: a relying party on loopback whose library
// (@simplewebauthn/server) verifies each registration and sign-in, the signature and the counter.
const PASSPHRASE = "passkey journey passphrase";
const base = server().baseUrl;
let rp: Awaited<ReturnType<typeof startWebAuthnRp>>;
let user: Awaited<ReturnType<typeof newUser>>;
let keys: VaultKeys;
let context: BrowserContext;

type Listed = {
  id: string;
  name: string;
  website: string | null;
  has_passkey: boolean;
  passkey_label: string | null;
  wrapped_item_key: string;
  encrypted_data: string;
};

/** The entries holding passkeys as the server has them, opened with the person's keys. */
async function passkeyEntries(): Promise<{ entry: Listed; secrets: EntrySecrets }[]> {
  const api = await apiAs(base, user.token);
  const list = (await api.get("/api/passwords")).body.data as Listed[];
  const out = [];
  for (const e of list.filter((x) => x.has_passkey)) {
    const { secrets } = await openEnvelope(keys, placeOf(user.sub, e), {
      wrapped_item_key: e.wrapped_item_key,
      encrypted_data: e.encrypted_data,
    });
    out.push({ entry: e, secrets });
  }
  return out;
}

const status = (page: Page) => page.locator("#status");

async function signInOnSite(page: Page, expected: RegExp) {
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  const frame = await extensionFrame(page);
  expect(await frame.locator("body").getAttribute("data-state")).toBe("asking");
  expect(await frameText(frame)).toContain("Sign in to localhost with a passkey");
  await pressInFrame(frame, /ada/);
  await expect.poll(() => status(page).innerText()).toMatch(expected);
}

beforeAll(async () => {
  // ES256 first (the library's default list puts EdDSA first; passkeys-ed25519.browser.test.ts takes that path).
  rp = await startWebAuthnRp({ algs: [-7, -257] });
  buildExtension(base);
  user = await newUser("passkeys");
  keys = await deriveVaultKeys(PASSPHRASE, user.sub);
  await seedEntries(base, user, keys, [
    { name: "Mail", website: "mail.test", username: "ada", password: "mail-pass" },
  ]);
  // The https relying party's certificate is self-signed.
  context = await signedInWithExtension(base, user.token, PASSPHRASE, [
    "--ignore-certificate-errors",
  ]);
});

afterAll(async () => {
  await context?.close();
  await rp?.stop();
});

describe("passkeys through the extension", () => {
  it("registers a passkey on a site, saved in a new entry that says it holds one", async () => {
    const page = await openPage(context, rp.url("/?user=ada"));
    await page.getByRole("button", { name: "Create a passkey" }).click();
    const frame = await extensionFrame(page);
    expect(await frameText(frame)).toContain("Save a passkey for ada on localhost?");
    await screenshot(page, "screenshots/passkey-create.png");
    await pressInFrame(frame, "Save in a new entry");
    await expect.poll(() => status(page).innerText()).toBe("Registered ada");
    expect(rp.accounts.get("ada")!.credentials).toHaveLength(1);
    // The vault pushed it: the server's entry says it holds a passkey; the passkey is in its ciphertext.
    await expect.poll(async () => (await passkeyEntries()).length, { timeout: 20_000 }).toBe(1);
    const [{ entry, secrets }] = await passkeyEntries();
    expect(entry).toMatchObject({
      website: "localhost",
      has_passkey: true,
      passkey_label: "localhost",
    });
    expect(secrets.passkeys).toHaveLength(1);
    expect(secrets.passkeys![0]).toMatchObject({
      rp_id: "localhost",
      user_name: "ada",
      alg: -7,
      sign_count: 0,
      discoverable: true,
      credential_id: rp.accounts.get("ada")!.credentials[0]!.id,
    });
  });

  it("signs in with it after signing out; the site's library verifies the signature and the counter rises", async () => {
    const page = await openPage(context, rp.url("/"));
    await signInOnSite(page, /^Signed in as ada, counter 1$/);
    await page.getByRole("button", { name: "Sign out" }).click();
    await signInOnSite(page, /^Signed in as ada, counter 2$/);
    expect(rp.accounts.get("ada")!.credentials[0]!.counter).toBe(2);
    // The raised counter is sealed in the entry and synced (a second device goes on from it).
    await expect
      .poll(async () => (await passkeyEntries())[0]?.secrets.passkeys?.[0]?.sign_count, {
        timeout: 20_000,
      })
      .toBe(2);
  });

  it("refuses another site's rp id, and says so in the page's error as the browser would", async () => {
    const page = await openPage(context, rp.url("/?rp=example.com"));
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await expect.poll(() => status(page).innerText()).toBe("Error: SecurityError");
    await page.getByRole("button", { name: "Create a passkey" }).click();
    await expect.poll(() => status(page).innerText()).toBe("Error: SecurityError");
    expect(rp.accounts.get("ada")!.credentials).toHaveLength(1);
  });

  it("an http page (not localhost) has no WebAuthn at all, so nothing reaches the vault", async () => {
    const page = await openPage(context, `http://rp.test:${rp.port}/`);
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await expect.poll(() => status(page).innerText()).toBe("No WebAuthn on this page");
  });

  it("on https, refuses a public suffix as the rp id, while the page's own host reaches the vault", async () => {
    // rp.test asking for "test": a suffix no one registers (the public suffix list's default rule).
    const tls = await startWebAuthnRp({ rpId: "rp.test", https: true });
    try {
      const page = await openPage(context, tls.url("/?rp=test"));
      await page.getByRole("button", { name: "Sign in with a passkey" }).click();
      await expect.poll(() => status(page).innerText()).toBe("Error: SecurityError");
      await page.getByRole("button", { name: "Create a passkey" }).click();
      await expect.poll(() => status(page).innerText()).toBe("Error: SecurityError");
      const own = await openPage(context, tls.url("/"));
      await own.getByRole("button", { name: "Sign in with a passkey" }).click();
      const frame = await extensionFrame(own);
      expect(await frameText(frame)).toContain("No passkey for rp.test in Credential Vault");
      await pressInFrame(frame, "Cancel");
      await expect.poll(() => status(own).innerText()).toBe("Error: NotAllowedError");
    } finally {
      await tls.stop();
    }
  });

  it("locked, the vault answers nothing: its frame says so and the person can decline", async () => {
    const popup = await openPopup(context);
    await popup.getByRole("button", { name: "Lock" }).click();
    await popup.locator("body[data-state=locked]").waitFor();
    const page = await openPage(context, rp.url("/"));
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    const frame = await extensionFrame(page);
    expect(await frameText(frame)).toContain("Credential Vault is locked");
    expect(await frame.getByRole("menuitem", { name: /ada/ }).count()).toBe(0);
    await pressInFrame(frame, "Cancel");
    await expect.poll(() => status(page).innerText()).toBe("Error: NotAllowedError");
    expect(rp.accounts.get("ada")!.credentials[0]!.counter).toBe(2);
    await popup.getByLabel("Master passphrase").fill(PASSPHRASE);
    await popup.getByRole("button", { name: "Unlock" }).click();
    await popup.locator("body[data-state=unlocked]").waitFor();
    await popup.close();
  });

  it("a second browser profile, after sync, signs in with the same passkey and continues the counter", async () => {
    const second = await launchWithExtension(newProfile(), base);
    try {
      const app = await second.context.newPage();
      await app.goto(base);
      await signInThroughPage(app, user.token, PASSPHRASE);
      await app.close();
      await (await unlockInPopup(second.context, PASSPHRASE)).close();
      const page = await openPage(second.context, rp.url("/"));
      await signInOnSite(page, /^Signed in as ada, counter 3$/);
      await screenshot(page, "screenshots/passkey-second-profile.png");
    } finally {
      await second.context.close();
    }
  });

  it("the server's storage holds no byte of the private key", async () => {
    const [{ secrets }] = await passkeyEntries();
    const d = base64url.decode(secrets.passkeys![0]!.private_key.d!);
    expect(d.length).toBe(32);
    const needles = [
      Buffer.from(d),
      Buffer.from(secrets.passkeys![0]!.private_key.d!),
      Buffer.from(Buffer.from(d).toString("base64")),
      Buffer.from(Buffer.from(d).toString("hex")),
    ];
    const files = stateFiles();
    expect(files.some((f) => f.endsWith(".sqlite"))).toBe(true);
    for (const f of files) {
      const bytes = readFileSync(f);
      for (const n of needles) expect(bytes.includes(n), `key bytes in ${f}`).toBe(false);
    }
  });

  it("the web app lists the entry's passkey (site, account, created), never its key, and deletes it", async () => {
    const [{ entry, secrets }] = await passkeyEntries();
    const app = await context.newPage();
    await app.goto(`${base}/vault`);
    await app.locator("#entries li").first().waitFor();
    await openEntry(app, entry.name);
    const row = app.locator('#revealed-fields dd[data-field="passkeys"] li');
    await expect
      .poll(() => row.innerText())
      .toMatch(/^Passkey site \(localhost\) · ada · created .+Delete$/s);
    const html = await app.content();
    expect(html).not.toContain(secrets.passkeys![0]!.private_key.d!);
    expect(html).not.toContain(secrets.passkeys![0]!.credential_id);
    await screenshot(app, "screenshots/passkey-entry-detail.png");
    // Chromium dismisses a tab's confirm() as soon as the tab is hidden, and this context still
    // holds the relying party's tabs: the app's tab is made the shown one before the dialog opens.
    await app.bringToFront();
    app.once("dialog", (d) => void d.accept());
    await app.getByRole("button", { name: "Delete the passkey of ada on localhost" }).click();
    await expect.poll(() => row.count()).toBe(0);
    // The server's entry no longer says it holds a passkey; the rest of the entry stays.
    await expect.poll(async () => (await passkeyEntries()).length, { timeout: 20_000 }).toBe(0);
    const api = await apiAs(base, user.token);
    const after = ((await api.get("/api/passwords")).body.data as Listed[]).find(
      (e) => e.id === entry.id,
    )!;
    expect(after).toMatchObject({ has_passkey: false, passkey_label: null, name: entry.name });
    await app.close();
  });
});
