import { describe, expect, it } from "vitest";
import { deriveVaultKeys, type EntrySecrets } from "../../core/crypto/crypto";
import { openEntry, placeOf, sealEntry } from "../../core/crypto/envelope";
import type { LocalEntry } from "../../core/store";
import {
  openIfProtected,
  parseImport,
  PasswordNeededError,
  readOwnExport,
  vaultFileBody,
  WrongPasswordError,
} from "../../core/importers";
import { plainCsv } from "../src/sections/export-vault";
import { counts, summaryText } from "../src/sections/import-preview";
import {
  isVaultFileBody,
  itemsOfServerExport,
  rowsOfItems,
  sealItem,
  vaultFile,
  type VaultFileItem,
} from "../src/sections/vault-file";

// The vault's own export file: only the format header in the clear; every entry comes back whole
// in any account, under a fresh id; the preview's count is what the import does.
const secrets = (over: Partial<EntrySecrets> = {}): EntrySecrets => ({
  username: "canary-user@mail.example",
  password: "canary-Pw-1",
  notes: 'canary notes, with a comma and a "quote"\nand a second line',
  category: "",
  totp: "otpauth://totp/Canary?secret=JBSWY3DPEHPK3PXP",
  folder: "Canary folder",
  favorite: true,
  urls: [{ url: "https://login.canary-extra.example", match: "host" }],
  fields: [{ name: "Canary PIN", value: "8642", type: "hidden" }],
  password_history: [{ password: "canary-old-pw", changed_at: "2026-01-01T00:00:00.000Z" }],
  ...over,
});

const item = (over: Partial<VaultFileItem> = {}): VaultFileItem => ({
  id: crypto.randomUUID(),
  name: "Canary Bank",
  website: "canary-bank.example",
  url: "https://canary-bank.example/login",
  tags: ["canary-tag"],
  secrets: secrets(),
  ...over,
});

const CANARIES = /canary|Canary|8642|JBSWY3DP/;

describe("the vault export file (version 2)", () => {
  it("holds nothing in the clear but the format header, and opens with its password only", async () => {
    const items = [item(), item({ name: "Canary Mail", website: "mail.canary.example" })];
    const file = await vaultFile(items, "the file password", 5000);
    const text = JSON.stringify(file);
    expect(text).not.toMatch(CANARIES);
    expect(Object.keys(file).sort()).toEqual(
      [
        "format",
        "version",
        "encrypted",
        "passwordProtected",
        "contents",
        "salt",
        "kdfType",
        "kdfIterations",
        "encKeyValidation_DO_NOT_EDIT",
        "data",
      ].sort(),
    );
    expect(file).toMatchObject({
      format: "credential-vault-export",
      version: 2,
      contents: "vault",
    });
    const bytes = new TextEncoder().encode(text);
    await expect(openIfProtected(bytes)).rejects.toThrow(PasswordNeededError);
    await expect(openIfProtected(bytes)).rejects.toThrow(
      "This vault export is protected by a password",
    );
    await expect(openIfProtected(bytes, "not it")).rejects.toThrow(WrongPasswordError);
    const body: unknown = JSON.parse(
      new TextDecoder().decode(await openIfProtected(bytes, "the file password")),
    );
    expect(isVaultFileBody(body)).toBe(true);
    expect((body as { items: VaultFileItem[] }).items).toEqual(items);
  });

  it("an item comes back whole in another account, under a fresh id bound to that account", async () => {
    const other = await deriveVaultKeys("another account's passphrase", "user-b", 1000);
    const it1 = item();
    const sealed = await sealItem(other, "user-b", it1);
    expect(sealed.id).not.toBe(it1.id);
    expect(sealed).toMatchObject({ name: it1.name, tags: it1.tags, encryption_version: 3 });
    const opened = await openEntry(other, placeOf("user-b", { ...sealed, id: sealed.id! }), {
      wrapped_item_key: sealed.wrapped_item_key,
      encrypted_data: sealed.encrypted_data,
    });
    expect(opened.secrets).toMatchObject(it1.secrets);
  });

  it("the preview marks duplicates (identical, changed since, or the same name and website) and counts them in what is imported", async () => {
    const here = item();
    const edited = item({ name: "Canary Edited" });
    const lookalike = item({ id: crypto.randomUUID() });
    const fresh = item({ name: "Fresh", website: "fresh.example" });
    const nameless = item({ name: " " });
    const local = (i: VaultFileItem) =>
      ({ id: i.id, name: i.name, website: i.website, url: i.url, tags: i.tags }) as LocalEntry;
    // In this vault: `here` as it was exported (its parts in another order, its password's date
    // set), `edited` with another password since the export.
    const inVault = new Map<string, EntrySecrets>([
      [
        here.id,
        {
          ...Object.fromEntries(Object.entries(here.secrets).reverse()),
          password_changed_at: "2026-02-02T00:00:00.000Z",
        } as EntrySecrets,
      ],
      [edited.id, { ...edited.secrets, password: "changed since" }],
    ]);
    const vault = [local(here), local(edited)];
    const rows = await rowsOfItems(
      [here, edited, lookalike, fresh, nameless],
      vault,
      async (e) => inVault.get(e.id)!,
    );
    expect(rows.map((r) => r.duplicate ?? null)).toEqual([
      "already in this vault, identical: imported as a copy",
      "this entry is in this vault, changed since the export: imported as a copy",
      // The same name and website as `here`, and the same content: identical to it.
      "already in this vault, identical: imported as a copy",
      null,
      null,
    ]);
    const differing = await rowsOfItems(
      [item({ id: crypto.randomUUID(), tags: ["other"] })],
      vault,
      async (e) => inVault.get(e.id)!,
    );
    expect(differing[0].duplicate).toBe(
      "an entry with this name and website is already in this vault: imported as a copy",
    );
    // An entry of this vault that does not open is still found by id, and not called identical.
    const closed = await rowsOfItems([here], vault);
    expect(closed[0].duplicate).toBe(
      "this very entry is already in this vault: imported as a copy",
    );
    expect(rows[4].problem).toBe("no name");
    expect(counts(rows, [])).toMatchObject({ ready: 4, duplicates: 3, kept: 1, skipped: 1 });
    expect(summaryText("This vault's export", rows, [])).toBe(
      "This vault's export: 4 entries ready (1 kept as they are, 0 changed, 3 duplicates imported as copies), 1 skipped.",
    );
  });

  it("the plain body earlier command lines wrote by default is still read as this vault's export, whole", async () => {
    const items = [item(), item({ name: "Canary Mail" })];
    const old = readOwnExport(JSON.stringify(vaultFileBody(items), null, 2));
    expect(isVaultFileBody(old)).toBe(true);
    const rows = await rowsOfItems((old as { items: VaultFileItem[] }).items, []);
    expect(rows.map((r) => [r.own, r.problem, r.duplicate])).toEqual(
      items.map((i) => [i, null, undefined]),
    );
  });

  it("a version 1 file (the server's document) opens in its own account; another account's entries say why they are not imported", async () => {
    const mine = await deriveVaultKeys("my passphrase", "user-a", 1000);
    const theirs = await deriveVaultKeys("their passphrase", "user-c", 1000);
    const meta = { id: crypto.randomUUID(), name: "Old", website: "old.example", url: null };
    const env = await sealEntry(mine, placeOf("user-a", meta), secrets());
    const doc = {
      format: "credential-vault-export" as const,
      version: 1 as const,
      exported_at: "",
      provider: "generic" as const,
      encryption_version: 3 as const,
      count: 1,
      skipped_placeholders: 0,
      entries: [{ ...meta, ...env, tags: ["t"] }],
    };
    const here = await itemsOfServerExport(mine, "user-a", doc);
    expect(here.closed).toEqual([]);
    expect(here.items[0]).toMatchObject({ id: meta.id, name: "Old", tags: ["t"] });
    expect(here.items[0].secrets.password).toBe("canary-Pw-1");
    const there = await itemsOfServerExport(theirs, "user-c", doc);
    expect(there.items).toEqual([]);
    expect(there.closed[0].problem).toMatch(/sealed with another account's vault key/);
  });
});

describe("the plain CSV export", () => {
  it("quotes every value and reads back through the generic CSV import, field for field", () => {
    const csv = plainCsv([item(), item({ name: 'Comma, "quoted"', tags: ["a", "b"] })]);
    expect(csv.split("\r\n")[0]).toBe(
      "name,url,username,password,notes,totp,tags,folder,favorite,kind,other_urls,fields",
    );
    const back = parseImport(csv, "generic");
    expect(back.skipped).toEqual([]);
    expect(back.credentials).toHaveLength(2);
    expect(back.credentials[1]).toMatchObject({
      name: 'Comma, "quoted"',
      url: "https://canary-bank.example/login",
      username: "canary-user@mail.example",
      password: "canary-Pw-1",
      notes: secrets().notes,
      totp: secrets().totp,
      tags: ["a", "b"],
      folder: "Canary folder",
    });
    expect(csv).toContain('"https://login.canary-extra.example"');
    expect(csv).toContain('"Canary PIN: 8642"');
  });
});
