import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deriveVaultKeys, type EntrySecrets, type VaultKeys } from "../../core/crypto/crypto";
import { sealInput, type EntryInput } from "../../core/vault/vault";
import { DEV_PASSWORD } from "../../scripts/lib/dev-users.mjs";
import { openFor } from "./support/api";
import { signedInPerson } from "./support/account";
import {
  dashboardReady,
  entryNames,
  fillEntry,
  launch,
  screenshot,
  waitForPending,
  type Browser,
} from "./support/browser";
import { d1, openSection } from "./support/journey";
import { signDevToken } from "../../scripts/lib/dev-identity.mjs";
import { server } from "./support/server";

// The vault's export taken from one account into a new one, in real Chromium: the file holds
// nothing in the clear but its format header; every field of every entry arrives; the preview's
// count (a duplicate shown as such) is what the import does. And the plain CSV, behind a warning
// and a recent sign-in.
let browser: Browser;
type Person = Awaited<ReturnType<typeof signedInPerson>>;
let a: Person;
let b: Person;
let keysA: VaultKeys;
let keysB: VaultKeys;
const PASS_A = "export-a passphrase 16";
const PASS_B = "export-b passphrase 16";
const PASS_C = "export-c passphrase 16";
const FILE_PASSWORD = "a long file password";

const login = (over: Partial<EntryInput>): EntryInput => ({
  name: "",
  website: "",
  url: "",
  tags: [],
  username: "",
  password: "",
  notes: "",
  category: "",
  totp: "",
  ...over,
});

// Every part an entry can hold, each with a canary the file must not show in the clear.
const PLANTED: EntryInput[] = [
  login({
    name: "Zephyrbank Canary",
    url: "https://zephyrbank-canary.example/login",
    tags: ["tag-quokka-money", "tag-quokka-shared"],
    username: "user-zephyr@canary.example",
    password: "pw-Zephyr-41",
    notes: "notes-zephyr: the branch on Canal street\nsecond line",
    totp: "otpauth://totp/Zephyr:me?secret=JBSWY3DPEHPK3PXP",
    folder: "folder-Quince",
    favorite: true,
    urls: [
      { url: "https://app.zephyrbank-canary.example", match: "host" },
      { url: "https://m.zephyrbank-canary.example/start", match: "starts_with" },
    ],
    fields: [
      { name: "field-PIN", value: "pin-97531", type: "hidden" },
      { name: "field-Branch", value: "branch-Northgate", type: "text" },
    ],
    password_history: [{ password: "pw-Zephyr-old", changed_at: "2026-01-02T03:04:05.000Z" }],
  }),
  login({
    name: "Mailhaven Canary",
    url: "https://mailhaven-canary.example",
    tags: ["tag-quokka-mail"],
    username: "user-mailhaven",
    password: "pw-Mailhaven-7",
    folder: "folder-Quince",
  }),
  login({
    name: "Cardholder Canary",
    tags: ["tag-quokka-card"],
    kind: "card",
    card: { cardholder: "holder-Quentin", number: "4000 0000 0000 0077" },
  }),
  login({
    name: "Safenote Canary",
    kind: "note",
    notes: "notes-safe: left 32, right 7",
  }),
];
const CANARY =
  /Canary|canary|quokka|Quince|Zephyr|Mailhaven|Northgate|97531|JBSWY3DP|Quentin|4000 0000|notes-safe|pw-/;

/** Every live entry of a person, opened in Node: the metadata the list shows and the whole payload. */
async function opened(p: Person, keys: VaultKeys, userId: string) {
  const rows = (await p.api.get("/api/passwords?limit=2000")).body.data as {
    id: string;
    name: string;
    website: string | null;
    url: string | null;
    tags: string[];
    wrapped_item_key: string;
    encrypted_data: string;
  }[];
  return Promise.all(
    rows.map(async (r) => ({
      id: r.id,
      name: r.name,
      website: r.website,
      url: r.url,
      tags: r.tags,
      secrets: await openFor(keys, userId, r),
    })),
  );
}

/** What must arrive, whatever the account: everything but the id and the dates. */
const comparable = (e: {
  name: string;
  website: string | null;
  url: string | null;
  tags: string[];
  secrets: EntrySecrets;
}) => {
  const { password_changed_at, ...secrets } = e.secrets;
  return { name: e.name, website: e.website, url: e.url, tags: e.tags, secrets };
};

beforeAll(async () => {
  browser = await launch();
  a = await signedInPerson(browser, "export-a", PASS_A);
  b = await signedInPerson(browser, "export-b", PASS_B);
  keysA = await deriveVaultKeys(PASS_A, a.user.sub);
  keysB = await deriveVaultKeys(PASS_B, b.user.sub);
  // Planted as the app seals them (on A's other device, as it were), then synced into A's page.
  const entries = await Promise.all(
    PLANTED.map(async (input) => {
      const id = crypto.randomUUID();
      const { data } = await sealInput(keysA, a.user.sub, id, input);
      return { ...data, id };
    }),
  );
  const res = await a.api.post("/api/passwords/import", { provider: "generic", entries });
  if (res.status !== 200 || res.body.imported !== PLANTED.length)
    throw new Error(`planting: ${res.status} ${JSON.stringify(res.body)}`);
});

afterAll(async () => {
  await browser?.close();
});

/** The preview's numbers (ready, kept, changed, duplicates, skipped) and the result's (imported, kept, changed, duplicates, not imported). */
const previewNumbers = async (page: Person["page"]) =>
  (await page.locator("#import-summary").innerText()).match(/\d+/g)!.map(Number);
const resultNumbers = async (page: Person["page"]) => {
  const [imported, , ...rest] = (await page.locator("#import-done").innerText())
    .match(/\d+/g)!
    .map(Number);
  return [imported, ...rest];
};

const importFile = async (page: Person["page"], name: string, text: string) => {
  await openSection(page, "Import & export");
  await page.getByLabel(/Export file from another password manager/).setInputFiles({
    name,
    mimeType: "application/json",
    buffer: Buffer.from(text),
  });
  await page.getByRole("button", { name: "Preview" }).click();
};

describe("the vault export, from one account into a new one", () => {
  let exported = "";

  it("A's export holds nothing in the clear but the format header", async () => {
    const { page } = a;
    await openSection(page, "Vault");
    await expect.poll(async () => (await entryNames(page)).length).toBe(PLANTED.length);
    await openSection(page, "Import & export");
    await page.getByLabel("Vault file password", { exact: true }).fill(FILE_PASSWORD);
    await page.getByLabel("Vault file password again", { exact: true }).fill(FILE_PASSWORD);
    const [file] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Export the vault" }).click(),
    ]);
    exported = readFileSync((await file.path())!, "utf8");
    await expect.poll(() => page.locator("#export-status").innerText()).toBe("Exported 4 entries.");
    expect(exported).not.toMatch(CANARY);
    const doc = JSON.parse(exported) as Record<string, unknown>;
    expect(Object.keys(doc).sort()).toEqual([
      "contents",
      "data",
      "encKeyValidation_DO_NOT_EDIT",
      "encrypted",
      "format",
      "kdfIterations",
      "kdfType",
      "passwordProtected",
      "salt",
      "version",
    ]);
    expect(doc).toMatchObject({
      format: "credential-vault-export",
      version: 2,
      contents: "vault",
      kdfType: 0,
      kdfIterations: 600_000,
    });
    // No id of A's entries either: they would link the file to the account.
    for (const e of await opened(a, keysA, a.user.sub)) expect(exported).not.toContain(e.id);
  });

  it("B imports it: the preview counts a duplicate as such, the import does exactly that, every field arrives", async () => {
    const { page } = b;
    // B already keeps one of the same logins: the preview must say so, and what it will do.
    await openSection(page, "Vault");
    await fillEntry(page, {
      name: "Mailhaven Canary",
      website: "mailhaven-canary.example",
      username: "b-own",
    });
    await waitForPending(page, 0);
    const own = [...(await b.api.entries()).values()][0] as { id: string };

    await importFile(page, "vault.json", exported);
    await expect
      .poll(() => page.locator("#import-error").innerText())
      .toMatch(/This vault export is protected by a password: enter it/);
    await page.getByLabel("Export password").fill("not the password");
    await page.getByRole("button", { name: "Preview" }).click();
    await expect
      .poll(() => page.locator("#import-error").innerText())
      .toMatch(/The password does not open this vault export/);
    await page.getByLabel("Export password").fill(FILE_PASSWORD);
    await page.getByRole("button", { name: "Preview" }).click();
    await expect
      .poll(() => page.locator("#import-summary").innerText())
      .toBe(
        "This vault's export: 4 entries ready (3 kept as they are, 0 changed, 1 duplicate imported as a copy), 0 skipped.",
      );
    const dup = page.locator("#import-preview tbody tr[data-status=duplicate]");
    expect(await dup.count()).toBe(1);
    expect(await dup.innerText()).toMatch(
      /Mailhaven Canary[\s\S]*Duplicate: an entry with this name and website is already in this vault: imported as a copy/,
    );
    await screenshot(page, "screenshots/vault-export-preview.png");
    const promised = await previewNumbers(page);
    await page.getByRole("button", { name: "Import 4 entries" }).click();
    await expect
      .poll(() => page.locator("#import-done").getAttribute("data-imported"), { timeout: 30_000 })
      .toBe("4");
    expect(await page.locator("#import-result .error").count()).toBe(0);
    expect(await resultNumbers(page)).toEqual(promised);

    const fromA = (await opened(a, keysA, a.user.sub)).map(comparable);
    const inB = await opened(b, keysB, b.user.sub);
    expect(inB).toHaveLength(5);
    const arrived = inB.filter((e) => e.id !== own.id);
    const idsA = new Set((await opened(a, keysA, a.user.sub)).map((e) => e.id));
    expect(arrived.every((e) => !idsA.has(e.id))).toBe(true);
    const byName = (x: { name: string }, y: { name: string }) => x.name.localeCompare(y.name);
    expect(arrived.map(comparable).sort(byName)).toEqual(fromA.sort(byName));
    // Spot checks that the comparison did cover the parts named in the planted entries.
    const bank = arrived.find((e) => e.name === "Zephyrbank Canary")!;
    expect(bank.secrets).toMatchObject({
      totp: PLANTED[0].totp,
      folder: "folder-Quince",
      favorite: true,
      urls: PLANTED[0].urls,
      fields: PLANTED[0].fields,
    });
    expect(bank.tags).toEqual(["tag-quokka-money", "tag-quokka-shared"]);

    await openSection(page, "Vault");
    await expect.poll(async () => (await entryNames(page)).length).toBe(5);
  });

  it("a brand-new account imports it: the preview's numbers are the result's, every field arrives", async () => {
    const c = await signedInPerson(browser, "export-c", PASS_C);
    const keysC = await deriveVaultKeys(PASS_C, c.user.sub);
    await importFile(c.page, "vault.json", exported);
    await c.page.getByLabel("Export password").fill(FILE_PASSWORD);
    await c.page.getByRole("button", { name: "Preview" }).click();
    await expect
      .poll(() => c.page.locator("#import-summary").innerText())
      .toBe("This vault's export: 4 entries ready (4 kept as they are, 0 changed), 0 skipped.");
    const promised = await previewNumbers(c.page);
    await c.page.getByRole("button", { name: "Import 4 entries" }).click();
    await expect
      .poll(() => c.page.locator("#import-done").getAttribute("data-imported"), {
        timeout: 30_000,
      })
      .toBe("4");
    expect(await resultNumbers(c.page)).toEqual(promised);
    expect(await c.page.locator("#import-result .error").count()).toBe(0);
    const byName = (x: { name: string }, y: { name: string }) => x.name.localeCompare(y.name);
    const fromA = (await opened(a, keysA, a.user.sub)).map(comparable).sort(byName);
    const inC = (await opened(c, keysC, c.user.sub)).map(comparable).sort(byName);
    expect(inC).toEqual(fromA);
    await openSection(c.page, "Vault");
    expect((await entryNames(c.page)).sort()).toEqual(PLANTED.map((p) => p.name).sort());
    await c.context.close();
  });

  it("A imports its own export back: every entry comes in again as a copy, none skipped", async () => {
    const { page } = a;
    await importFile(page, "vault.json", exported);
    await page.getByLabel("Export password").fill(FILE_PASSWORD);
    await page.getByRole("button", { name: "Preview" }).click();
    await expect
      .poll(() => page.locator("#import-summary").innerText())
      .toBe(
        "This vault's export: 4 entries ready (0 kept as they are, 0 changed, 4 duplicates imported as copies), 0 skipped.",
      );
    expect(
      await page.locator("#import-preview tbody tr[data-status=duplicate]").first().innerText(),
    ).toMatch(/Duplicate: already in this vault, identical: imported as a copy/);
    expect(await page.locator("#import-preview tbody tr[data-status=duplicate]").count()).toBe(4);
    const promised = await previewNumbers(page);
    await page.getByRole("button", { name: "Import 4 entries" }).click();
    await expect
      .poll(() => page.locator("#import-done").getAttribute("data-imported"), { timeout: 30_000 })
      .toBe("4");
    expect(await resultNumbers(page)).toEqual(promised);
    const all = await opened(a, keysA, a.user.sub);
    expect(all).toHaveLength(8);
    expect(new Set(all.map((e) => e.id)).size).toBe(8);
  });
});

describe("the plain CSV export", () => {
  // Two sign-ins and one more at the provider: a long journey on a loaded machine.
  it("is behind a warning to tick and a recent sign-in, even ten minutes into a session; it is audited", {
    timeout: 120_000,
  }, async () => {
    // Signed in on this browser (its device registered and its key kept), then again with a sign-in
    // made ten minutes ago: the device is known, the sign-in is old.
    const { user: u, context, page } = await signedInPerson(browser, "plain-export");
    await fillEntry(page, {
      name: "Plain one",
      website: "plain.example",
      username: "pat",
      password: 'pw, with "quotes"',
    });
    await waitForPending(page, 0);
    // The session's cookie now holds a sign-in made ten minutes ago; the vault stays unlocked on
    // this device (its keys are kept), so only the server's view of the sign-in changes.
    const stale = (await signDevToken({
      sub: u.sub,
      email: u.email,
      issuer: server().idpIssuer,
      authAge: 600,
    })) as string;
    await context.addCookies([
      {
        name: "access_token",
        value: stale,
        url: new URL(page.url()).origin,
        httpOnly: true,
        sameSite: "Strict",
      },
    ]);
    await page.goto("/vault");
    await dashboardReady(page);

    await openSection(page, "Import & export");
    expect(await page.locator("#plain-warning").innerText()).toMatch(/This file is not encrypted/);
    const button = page.getByRole("button", { name: "Export as plain CSV" });
    expect(await button.isDisabled()).toBe(true);
    await page.getByLabel(/I understand that this file is readable by anyone/).check();
    let downloads = 0;
    page.on("download", () => downloads++);
    await button.click();
    // The sign-in is ten minutes old: the app asks for a fresh one before any file is made.
    const confirm = page.getByRole("dialog", { name: "Confirm it's you" });
    await confirm.waitFor();
    expect(downloads).toBe(0);
    await screenshot(page, "screenshots/plain-export-step-up.png");
    const [popup] = await Promise.all([
      context.waitForEvent("page"),
      confirm.getByRole("button", { name: "Sign in again" }).click(),
    ]);
    const file = page.waitForEvent("download");
    await popup.getByLabel("Email").waitFor();
    await popup.getByLabel("Email").fill(u.email);
    await popup.getByLabel("Password").fill(DEV_PASSWORD);
    await popup.getByRole("button", { name: "Sign in" }).click();
    const csv = readFileSync((await (await file).path())!, "utf8");
    expect(csv.split("\r\n")[0]).toBe(
      "name,url,username,password,notes,totp,tags,folder,favorite,kind,other_urls,fields",
    );
    expect(csv).toMatch(/^"Plain one","[^"]*plain\.example[^"]*","pat","pw, with ""quotes"""/m);
    const audit = d1<{ action: string }>(
      `SELECT action FROM audit_events WHERE user_id = '${u.sub}' AND action = 'password.export_plain'`,
    );
    expect(audit).toHaveLength(1);
    await context.close();
  });
});
