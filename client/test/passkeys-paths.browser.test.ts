import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { server } from "./support/server";
import { startWebAuthnRp } from "../../test/support/webauthn-rp";
import { signDevToken } from "../../scripts/lib/dev-identity.mjs";
import type { EntrySecrets, VaultKeys } from "../../core/crypto/crypto";
import { apiAs, openFor } from "./support/api";
import {
  entryRow,
  newUser,
  openEntry,
  screenshot,
  type BrowserContext,
  type Page,
} from "./support/browser";
import {
  buildExtension,
  deriveVaultKeys,
  extensionFrame,
  frameText,
  openPage,
  pressInFrame,
  seedEntries,
  signedInWithExtension,
} from "./support/extension";

// The passkey paths beside the main journey (passkeys.browser.test.ts), in real Chromium with the
// extension: the browser's own authenticator as the fallback, a passkey added to an existing entry,
// excludeCredentials, a credential kept to its own rp; and in the web app the list's passkey mark,
// the "With passkeys" filter and the registry's "This site supports passkeys".
const PASSPHRASE = "passkey paths passphrase";
const base = server().baseUrl;
const tag = Math.random().toString(36).slice(2, 8);
/** Sites the registry says offer passkeys (unique per run: the registry is global). */
const KEYED = `keyed-${tag}.example`;
const PLAIN_HTTP = `plainhttp-${tag}.example`;
let rp: Awaited<ReturnType<typeof startWebAuthnRp>>;
let user: Awaited<ReturnType<typeof newUser>>;
let keys: VaultKeys;
let context: BrowserContext;

type Listed = {
  id: string;
  name: string;
  website: string | null;
  has_passkey: boolean;
  wrapped_item_key: string;
  encrypted_data: string;
};

/** Every entry as the server has it, opened with the person's keys. */
async function serverEntries(): Promise<{ entry: Listed; secrets: EntrySecrets }[]> {
  const list = (await (await apiAs(base, user.token)).get("/api/passwords?limit=2000")).body
    .data as Listed[];
  return Promise.all(
    list.map(async (entry) => ({ entry, secrets: await openFor(keys, user.sub, entry) })),
  );
}
const allPasskeys = async () => (await serverEntries()).flatMap((e) => e.secrets.passkeys ?? []);
const status = (page: Page) => page.locator("#status");

beforeAll(async () => {
  rp = await startWebAuthnRp();
  buildExtension(base);
  user = await newUser("pkpaths");
  keys = await deriveVaultKeys(PASSPHRASE, user.sub);
  await seedEntries(base, user, keys, [
    { name: "Site login", website: "localhost", username: "bob", password: "bob-pass" },
    { name: "Keyed shop", website: `shop.${KEYED}`, username: "kim", password: "kim-pass" },
    { name: "Plain http site", website: PLAIN_HTTP, username: "pat", password: "pat-pass" },
  ]);
  // An operator says, in the admin registry, which sites offer passkeys and where.
  const admin = await apiAs(
    base,
    (await signDevToken({
      sub: `admin-${tag}`,
      email: `admin-${tag}@example.test`,
      admin: true,
      issuer: server().idpIssuer,
    })) as string,
  );
  for (const body of [
    {
      domain: KEYED,
      name: "Keyed Shop",
      passkey_support_type: "sign-in",
      passkey_setup_url: `https://${KEYED}/account/passkeys`,
    },
    {
      domain: PLAIN_HTTP,
      name: "Plain",
      passkey_support_type: "mfa-only",
      passkey_setup_url: `http://${PLAIN_HTTP}/passkeys`,
    },
  ]) {
    const res = await admin.post("/api/admin/services/registry", body);
    if (res.status !== 201)
      throw new Error(`registry override: ${res.status} ${JSON.stringify(res.body)}`);
  }
  context = await signedInWithExtension(base, user.token, PASSPHRASE, [
    "--ignore-certificate-errors",
  ]);
});

afterAll(async () => {
  await context?.close();
  await rp?.stop();
});

describe("passkey paths through the extension", () => {
  it("“Use the browser's own” hands the request to the browser's authenticator: it registers there, and its refusal reaches the page as its own", async () => {
    const page = await openPage(context, rp.url("/?user=carol"));
    // The browser's own authenticator: Chromium's virtual one (DevTools WebAuthn domain).
    const cdp = await context.newCDPSession(page);
    await cdp.send("WebAuthn.enable");
    const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
      options: {
        protocol: "ctap2",
        transport: "internal",
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    await page.getByRole("button", { name: "Create a passkey" }).click();
    const frame = await extensionFrame(page);
    expect(await frameText(frame)).toContain("Save a passkey for carol on localhost?");
    await pressInFrame(frame, "Use the browser's own");
    await expect.poll(() => status(page).innerText()).toBe("Registered carol");
    const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]!.rpId).toBe("localhost");
    const made = rp.accounts.get("carol")!.credentials;
    expect(made).toHaveLength(1);
    expect(Buffer.from(credentials[0]!.credentialId, "base64").toString("base64url")).toBe(
      made[0]!.id,
    );

    // Again, excluding that credential: the vault does not hold it, the browser's authenticator
    // does and refuses; the page gets the browser's InvalidStateError, not one of ours.
    const excluded = made[0]!.id;
    const outcome = page.evaluate(async (id) => {
      const bin = (s: string) =>
        Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
      try {
        await navigator.credentials.create({
          publicKey: {
            challenge: crypto.getRandomValues(new Uint8Array(32)),
            rp: { id: "localhost", name: "Passkey site" },
            user: { id: new TextEncoder().encode("carol"), name: "carol", displayName: "carol" },
            pubKeyCredParams: [{ type: "public-key", alg: -7 }],
            excludeCredentials: [{ type: "public-key", id: bin(id) }],
            authenticatorSelection: { residentKey: "required", userVerification: "required" },
          },
        });
        return "created";
      } catch (e) {
        return `${(e as Error).name}: ${(e as Error).message}`;
      }
    }, excluded);
    await pressInFrame(await extensionFrame(page), "Use the browser's own");
    const said = await outcome;
    expect(said).toMatch(/^InvalidStateError: /);
    expect(said).not.toContain("Credential Vault");
    expect(
      (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials,
    ).toHaveLength(1);
    // Nothing of carol's reached the vault.
    expect((await allPasskeys()).filter((p) => p.user_name === "carol")).toEqual([]);
    await page.close();
  });

  it("“Add to <entry>” puts the passkey in the chosen existing entry, and makes no new one", async () => {
    const before = await serverEntries();
    const page = await openPage(context, rp.url("/?user=bob"));
    await page.getByRole("button", { name: "Create a passkey" }).click();
    const frame = await extensionFrame(page);
    await screenshot(page, "screenshots/passkey-add-to-entry.png");
    await pressInFrame(frame, "Add to Site login (bob)");
    await expect.poll(() => status(page).innerText()).toBe("Registered bob");
    const bobId = rp.accounts.get("bob")!.credentials[0]!.id;
    await expect
      .poll(
        async () =>
          (await serverEntries())
            .find((e) => e.entry.name === "Site login")
            ?.secrets.passkeys?.map((p) => p.credential_id),
        { timeout: 20_000 },
      )
      .toEqual([bobId]);
    const after = await serverEntries();
    expect(after.map((e) => e.entry.id).sort()).toEqual(before.map((e) => e.entry.id).sort());
    const site = after.find((e) => e.entry.name === "Site login")!;
    expect(site.entry.has_passkey).toBe(true);
    // The entry's login is as it was, the passkey beside it.
    expect(site.secrets).toMatchObject({ username: "bob", password: "bob-pass" });
    expect(site.secrets.passkeys![0]).toMatchObject({ rp_id: "localhost", user_name: "bob" });
    await page.close();
  });

  it("a create whose excludeCredentials names a passkey the vault holds for that rp is refused with InvalidStateError, and nothing is stored", async () => {
    const page = await openPage(context, rp.url("/?user=bob"));
    await page.getByRole("button", { name: "Create a passkey" }).click();
    await pressInFrame(await extensionFrame(page), "Save in a new entry");
    await expect.poll(() => status(page).innerText()).toBe("Error: InvalidStateError");
    expect(rp.accounts.get("bob")!.credentials).toHaveLength(1);
    const entries = await serverEntries();
    expect(entries).toHaveLength(3);
    expect((await allPasskeys()).map((p) => p.user_name)).toEqual(["bob"]);
    await page.close();
  });

  it("a passkey of one site is not offered on another, even when the other names its credential id", async () => {
    const other = await startWebAuthnRp({ rpId: "rp.test", https: true });
    try {
      const page = await openPage(context, other.url("/"));
      const bobId = rp.accounts.get("bob")!.credentials[0]!.id;
      const outcome = page.evaluate(async (id) => {
        const bin = (s: string) =>
          Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
        try {
          await navigator.credentials.get({
            publicKey: {
              challenge: crypto.getRandomValues(new Uint8Array(32)),
              rpId: "rp.test",
              allowCredentials: [{ type: "public-key", id: bin(id) }],
              userVerification: "required",
            },
          });
          return "signed";
        } catch (e) {
          return (e as Error).name;
        }
      }, bobId);
      const frame = await extensionFrame(page);
      expect(await frameText(frame)).toContain("No passkey for rp.test in Credential Vault");
      expect(await frame.getByRole("menuitem", { name: /bob/ }).count()).toBe(0);
      await pressInFrame(frame, "Cancel");
      expect(await outcome).toBe("NotAllowedError");
      // And its discoverable sign-in lists none of localhost's either.
      await page.getByRole("button", { name: "Sign in with a passkey" }).click();
      const again = await extensionFrame(page);
      expect(await frameText(again)).toContain("No passkey for rp.test in Credential Vault");
      await pressInFrame(again, "Cancel");
      await expect.poll(() => status(page).innerText()).toBe("Error: NotAllowedError");
      await page.close();
    } finally {
      await other.stop();
    }
  });
});

describe("passkeys in the web app's list and detail", () => {
  it("marks an entry holding a passkey in the list, and “With passkeys” lists only those", async () => {
    const app = await context.newPage();
    await app.goto(`${base}/vault`);
    await entryRow(app, "Site login").waitFor();
    await expect
      .poll(() => entryRow(app, "Site login").locator(".passkey-mark").count(), { timeout: 20_000 })
      .toBe(1);
    expect(
      await entryRow(app, "Site login").getByRole("button").getAttribute("data-id"),
    ).toBeTruthy();
    expect(
      await entryRow(app, "Site login")
        .getByRole("button", { name: /Passkey/ })
        .count(),
    ).toBe(1);
    expect(await entryRow(app, "Keyed shop").locator(".passkey-mark").count()).toBe(0);
    await app.getByLabel("Kind", { exact: true }).selectOption({ label: "With passkeys" });
    await expect
      .poll(() => app.locator("#entries li .name").allInnerTexts())
      .toEqual(["Site login"]);
    await screenshot(app, "screenshots/vault-with-passkeys-filter.png");
    await app.getByLabel("Kind", { exact: true }).selectOption({ label: "All kinds" });
    await expect.poll(() => app.locator("#entries li .name").count()).toBe(3);
    await app.close();
  });

  it("an entry of a site the registry lists says it supports passkeys, links to its https setup page, and says the extension saves the passkey", async () => {
    const app = await context.newPage();
    await app.goto(`${base}/vault`);
    await openEntry(app, "Keyed shop");
    const hint = app.locator('#revealed-fields dd[data-field="passkey-hint"]');
    await expect.poll(() => hint.count()).toBe(1);
    expect(await hint.innerText()).toMatch(/This site supports passkeys/);
    expect(await hint.innerText()).toMatch(/browser extension offers to save the passkey/);
    const link = hint.getByRole("link", { name: "Add a passkey on Keyed Shop" });
    expect(await link.getAttribute("href")).toBe(`https://${KEYED}/account/passkeys`);
    expect(await link.getAttribute("rel")).toBe("noopener noreferrer");
    expect(await link.getAttribute("target")).toBe("_blank");
    await screenshot(app, "screenshots/passkey-registry-hint.png");
    // At phone width the hint takes the row's whole width, its words whole.
    await app.setViewportSize({ width: 390, height: 844 });
    const box = (await hint.boundingBox())!;
    expect(box.width).toBeGreaterThan(300);
    await screenshot(app, "screenshots/passkey-registry-hint-390.png");
    await app.setViewportSize({ width: 1280, height: 900 });

    // A setup address that is not https is never a link; the support is still said.
    await openEntry(app, "Plain http site");
    await expect.poll(() => hint.count()).toBe(1);
    expect(await hint.innerText()).toMatch(/as a second step/);
    expect(await hint.getByRole("link").count()).toBe(0);

    // An entry that holds a passkey, or whose site the registry does not list, has no hint.
    await openEntry(app, "Site login");
    await app.locator('#revealed-fields dd[data-field="passkeys"]').waitFor();
    expect(await hint.count()).toBe(0);
    await app.close();
  });
});
