import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInWithEntries } from "./support/seed";
import { fromBase64 } from "../../src/kernel/base64";
import { placeOf } from "../../core/crypto/envelope";
import { openSharedEntry, unwrapVaultKey } from "../../core/crypto/share-crypto";
import { fingerprint, type PublicJwk } from "../../core/crypto/trust";
import { apiAs } from "./support/api";
import {
  launch,
  newUser,
  screenshot,
  signInThroughPage,
  type Browser,
  type Page,
} from "./support/browser";
import { base, d1, openSection, personContext, useContactKey } from "./support/journey";

// Olivia shares and names emergency contacts in her browser; Rick and Nina are people whose sharing
// keys the test made (so it can open what the server holds for them). A contact's key is asked
// about once, with its fingerprint, whatever it is first used for; whether Olivia compared it is
// kept beside the pin and shown beside the contact; a changed key is refused as before.
const PASS_O = "olivia passphrase 59";
const SECRET = "pw-keys-compared-5931";
let browser: Browser;
let olivia: Page;
let o: Awaited<ReturnType<typeof newUser>>;
let r: Awaited<ReturnType<typeof newUser>>;
let n: Awaited<ReturnType<typeof newUser>>;
let rApi: Awaited<ReturnType<typeof apiAs>>;
let oApi: Awaited<ReturnType<typeof apiAs>>;
let rickKey: CryptoKeyPair;

async function sharingPair(): Promise<{ pair: CryptoKeyPair; jwk: PublicJwk }> {
  const pair = (await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, [
    "deriveBits",
  ])) as CryptoKeyPair;
  const { kty, crv, x, y } = (await crypto.subtle.exportKey("jwk", pair.publicKey)) as PublicJwk;
  return { pair, jwk: { kty, crv, x, y } };
}

async function registerKey(api: Awaited<ReturnType<typeof apiAs>>, jwk: PublicJwk) {
  expect((await api.put("/api/sharing/public-key", { publicKey: jwk })).status).toBe(200);
}

beforeAll(async () => {
  [o, r, n] = await Promise.all([newUser("olivia"), newUser("rick"), newUser("nina")]);
  let nApi: typeof rApi;
  [oApi, rApi, nApi] = await Promise.all([
    apiAs(base(), o.token),
    apiAs(base(), r.token),
    apiAs(base(), n.token),
  ]);
  const rick = await sharingPair();
  rickKey = rick.pair;
  await registerKey(rApi, rick.jwk);
  await registerKey(nApi, (await sharingPair()).jwk);
  browser = await launch();
  olivia = (await personContext(browser)).page;
});

afterAll(async () => {
  await browser?.close();
});

const panelFor = (p: Page, email: string) =>
  p.getByRole("dialog", { name: `Compare ${email}'s key` });
const ownedRow = (email: string) => olivia.locator("#owned-rows tr", { hasText: email });
const contactRow = (email: string) => olivia.locator("#contact-rows tr", { hasText: email });
const badgeOf = (row: ReturnType<Page["locator"]>) => row.locator(".key-status").innerText();

async function share(entry: string, email: string) {
  await olivia.getByLabel("Entry", { exact: true }).selectOption({ label: entry });
  await olivia.getByLabel("Recipient's email").fill(email);
  await olivia.getByRole("button", { name: "Share", exact: true }).click();
}

async function invite(email: string) {
  await olivia.getByLabel("Contact's email").fill(email);
  await olivia.getByLabel("Waiting period (hours, 1 to 720)").fill("24");
  await olivia.getByLabel("Your master passphrase").fill(PASS_O);
  await olivia.getByRole("button", { name: "Invite", exact: true }).click();
}

describe("a contact's key: compared once, known for every purpose", () => {
  it("the first share with Rick shows his fingerprint and asks to compare before anything is sent; 'they match' is recorded", async () => {
    await signInWithEntries(olivia, o, PASS_O, [
      {
        name: "Team wiki",
        website: "wiki.example",
        username: "olivia",
        password: SECRET,
      },
      {
        name: "Router",
        website: "router.example",
        username: "admin",
        password: "pw-router-59",
      },
    ]);
    await openSection(olivia, "Sharing");
    await olivia.locator("#share-submit:not([disabled])").waitFor();
    await share("Team wiki", r.email);
    const panel = panelFor(olivia, r.email);
    await panel.waitFor();
    expect(await panel.locator("#first-use-fingerprint").innerText()).toBe(
      await fingerprint((await rApi.get("/api/sharing/public-key")).body.publicKey),
    );
    const text = await panel.innerText();
    expect(text).toContain('sees under "Your sharing key" on their Contacts\' keys page');
    expect(text).toContain(
      "You compare a person's key only once: this device then knows it for sharing, emergency access and the dead man's switch alike, and warns you if it ever changes.",
    );
    // The panel waits for the person: nothing is on the server while it is open.
    expect((await oApi.get("/api/sharing?type=owned")).body.shares).toEqual([]);
    await screenshot(olivia, "screenshots/contact-key-first-use.png");
    await panel.getByRole("button", { name: "We compared: they match" }).click();
    await ownedRow(r.email).waitFor();
    expect(await badgeOf(ownedRow(r.email))).toBe("key verified");

    // What the server holds opens with Rick's own private key: the wrap was made for his key.
    const [pending] = (await rApi.get("/api/sharing?type=received")).body.shares;
    expect((await rApi.patch(`/api/sharing/${pending.id}`, { status: "active" })).status).toBe(200);
    const received = (await rApi.get("/api/sharing?type=received")).body.shares;
    expect(received).toHaveLength(1);
    const s = received[0];
    const secrets = await openSharedEntry(
      rickKey.privateKey,
      s.account.wrapped_item_key,
      placeOf(s.owner_id, s.account),
      s.account.encrypted_data,
    );
    expect(secrets.password).toBe(SECRET);
  });

  it("inviting Rick as an emergency contact then does not ask again; the server's wrap is for his compared key", async () => {
    await openSection(olivia, "Emergency access");
    await invite(r.email);
    // The invitation goes through with no panel: it would block the invitation until answered.
    await expect.poll(() => contactRow(r.email).locator("td").nth(1).innerText()).toBe("invited");
    expect(await olivia.getByRole("dialog").count()).toBe(0);
    expect(await badgeOf(contactRow(r.email))).toBe("key verified");
    const [stored] = d1<{ wrapped_access_key: string; invite_salt: string }>(
      `SELECT wrapped_access_key, invite_salt FROM emergency_contacts WHERE owner_id = '${o.sub}' AND contact_email = '${r.email}'`,
    );
    await unwrapVaultKey(rickKey.privateKey, stored!.wrapped_access_key, {
      purpose: "emergency",
      ownerId: o.sub,
      recipientEmail: r.email,
      salt: fromBase64(stored!.invite_salt),
    });
  });

  it("Nina's key used without comparing is marked 'not compared' everywhere, is not asked about again, and can be compared later", async () => {
    await openSection(olivia, "Sharing");
    await olivia.locator("#share-submit:not([disabled])").waitFor();
    await share("Router", n.email);
    await useContactKey(olivia, n.email);
    await ownedRow(n.email).waitFor();
    expect(await badgeOf(ownedRow(n.email))).toBe("key not compared");
    expect(
      (await oApi.get("/api/sharing?type=owned")).body.shares
        .map((x: { recipient_email: string }) => x.recipient_email)
        .sort(),
    ).toEqual([r.email, n.email].sort());

    await openSection(olivia, "Emergency access");
    await invite(n.email);
    await expect.poll(() => contactRow(n.email).locator("td").nth(1).innerText()).toBe("invited");
    expect(await olivia.getByRole("dialog").count()).toBe(0);
    expect(await badgeOf(contactRow(n.email))).toBe("key not compared");

    // Comparing later, from beside the contact: the pinned key's fingerprint, then "verified" everywhere.
    await contactRow(n.email)
      .getByRole("button", { name: `Compare ${n.email}'s key (not compared yet)` })
      .click();
    const panel = panelFor(olivia, n.email);
    expect(await panel.locator("#first-use-fingerprint").innerText()).toBe(
      await fingerprint(
        (await apiAs(base(), n.token).then((a) => a.get("/api/sharing/public-key"))).body.publicKey,
      ),
    );
    await panel.getByRole("button", { name: "We compared: they match" }).click();
    await expect.poll(() => badgeOf(contactRow(n.email))).toBe("key verified");
    await openSection(olivia, "Sharing");
    await expect.poll(() => badgeOf(ownedRow(n.email))).toBe("key verified");
  });

  it("a changed key is still refused with both fingerprints, and nothing more reaches the server", async () => {
    const before = (await oApi.get("/api/sharing?type=owned")).body.shares.length;
    const pinned = await fingerprint((await rApi.get("/api/sharing/public-key")).body.publicKey);
    const other = await sharingPair();
    await registerKey(rApi, other.jwk);
    await share("Router", r.email);
    await expect
      .poll(() => olivia.locator("#share-error").innerText())
      .toContain(
        `(pinned ${pinned}, offered ${await fingerprint(other.jwk)}). Nothing was shared.`,
      );
    expect(await olivia.getByRole("dialog").count()).toBe(0);
    expect((await oApi.get("/api/sharing?type=owned")).body.shares).toHaveLength(before);

    // The Keys page lists what this device knows, and warns about the new key.
    await olivia.goto("/keys");
    await olivia.locator("body[data-ready=true]").waitFor();
    const known = (email: string) => olivia.locator("#known-rows tr", { hasText: email });
    expect(await badgeOf(known(r.email))).toBe("key verified");
    expect(await known(r.email).locator("td.fingerprint").innerText()).toBe(pinned);
    await olivia.getByLabel("Contact's email").fill(r.email);
    await olivia.getByRole("button", { name: "Check key" }).click();
    await expect.poll(() => olivia.locator("#result").getAttribute("data-status")).toBe("changed");
    await screenshot(olivia, "screenshots/contact-keys-page.png");
  });

  it("pins kept per purpose by the previous version become one record per contact, not compared", async () => {
    const uma = await newUser("uma");
    const page = (await personContext(browser)).page;
    const rick = (await rApi.get("/api/sharing/public-key")).body.publicKey as PublicJwk;
    const stale = (await sharingPair()).jwk;
    // The version-1 database as the previous client left it: one pin per (user, purpose, email).
    await page.goto("/icon.svg");
    const pins = [
      {
        userId: uma.sub,
        purpose: "sharing",
        email: r.email,
        jwk: stale,
        fingerprint: await fingerprint(stale),
        pinnedAt: "2025-01-01T00:00:00.000Z",
      },
      {
        userId: uma.sub,
        purpose: "emergency",
        email: r.email,
        jwk: rick,
        fingerprint: await fingerprint(rick),
        pinnedAt: "2025-06-01T00:00:00.000Z",
      },
    ];
    await page.evaluate(
      (rows) =>
        new Promise<void>((resolve, reject) => {
          const open = indexedDB.open("vault-trust", 1);
          open.onupgradeneeded = () => {
            open.result.createObjectStore("floors", { keyPath: "userId" });
            const store = open.result.createObjectStore("pins", {
              keyPath: ["userId", "purpose", "email"],
            });
            for (const p of rows) store.put(p);
          };
          open.onsuccess = () => (open.result.close(), resolve());
          open.onerror = () => reject(open.error);
        }),
      pins,
    );
    await signInThroughPage(page, uma.token, "uma passphrase 59");
    await page.goto("/keys");
    await page.locator("body[data-ready=true]").waitFor();
    const row = page.locator("#known-rows tr", { hasText: r.email });
    expect(await page.locator("#known-rows tr").count()).toBe(1);
    expect(await row.locator("td.fingerprint").innerText()).toBe(await fingerprint(rick));
    expect(await row.locator(".key-status").innerText()).toBe("key not compared");
  });
});
