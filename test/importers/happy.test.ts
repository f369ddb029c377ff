import { describe, expect, it } from "vitest";
import { detectProvider, parseImport, secretPayload } from "../../core/importers/read";
import { TestUser } from "../support/auth";
import chrome from "../fixtures/imports/browser-chrome.csv?raw";
import firefox from "../fixtures/imports/browser-firefox.csv?raw";
import safari from "../fixtures/imports/browser-safari.csv?raw";
import genericCsv from "../fixtures/imports/generic.csv?raw";
import genericJson from "../fixtures/imports/generic.json?raw";
import mgr1Csv from "../fixtures/imports/mgr1.csv?raw";
import mgr1Json from "../fixtures/imports/mgr1.json?raw";
import mgr2 from "../fixtures/imports/mgr2.csv?raw";
import mgr3 from "../fixtures/imports/mgr3.csv?raw";
import mgr4 from "../fixtures/imports/mgr4.csv?raw";

describe("client importers: detection", () => {
  it("tells every sample file's provider and format", () => {
    const cases: [string, string, string][] = [
      [chrome, "source_browser", "csv"],
      [firefox, "source_browser", "csv"],
      [safari, "source_browser", "csv"],
      [mgr1Json, "source_mgr_1", "json"],
      [mgr1Csv, "source_mgr_1", "csv"],
      [mgr2, "source_mgr_2", "csv"],
      [mgr3, "source_mgr_3", "csv"],
      [mgr4, "source_mgr_4", "csv"],
      [genericCsv, "generic", "csv"],
      [genericJson, "generic", "json"],
    ];
    for (const [text, provider, format] of cases) {
      expect(detectProvider(text)).toBe(provider);
      expect(parseImport(text)).toMatchObject({ provider });
      expect(format === "json").toBe(/^\s*[[{]/.test(text.replace(/^\uFEFF/, "")));
    }
  });
});

describe("client importers: parsing", () => {
  it("browser CSV: BOM, CRLF, quoted commas and quotes, multi-line notes", () => {
    const { credentials } = parseImport(chrome, "source_browser");
    expect(credentials).toHaveLength(3);
    expect(credentials[0]).toMatchObject({
      name: "example.com",
      url: "https://accounts.example.com/signin",
      website: "accounts.example.com",
      username: "alice@example.test",
      password: 'p@ss,word"1',
      notes: "",
    });
    expect(credentials[1]).toMatchObject({
      website: "forum.example.org",
      password: "Tr0ub4dor&3",
      notes: "Security question: first pet\nAnswer: Rex",
    });
    expect(credentials[2]).toMatchObject({ website: "192.168.1.1", username: "admin" });
    const ff = parseImport(firefox).credentials;
    expect(ff.map((c) => [c.name, c.username, c.password])).toEqual([
      ["mail.example.net", "bob@example.net", "correct horse battery staple"],
      ["intranet.example.com", "bob", "Zürich-2024!"],
    ]);
    const sf = parseImport(safari).credentials;
    expect(sf[0]).toMatchObject({
      name: "shop.example.com (carol)",
      totp: "otpauth://totp/Shop:carol?secret=JBSWY3DPEHPK3PXP&issuer=Shop",
    });
    expect(sf[1]).toMatchObject({
      password: 'Quote "inside" pass',
      notes: "Branch 042",
      website: "online.bank.example",
    });
  });

  it("source_mgr_1 JSON and CSV: logins with folders, favourites, every address and typed fields; notes as notes", () => {
    const json = parseImport(mgr1Json);
    expect(json.credentials).toHaveLength(3);
    expect(json.skipped).toEqual([]);
    expect(json.credentials[0]).toMatchObject({
      name: "Code host",
      url: "https://code.example.dev/login",
      website: "code.example.dev",
      username: "dave",
      password: "gh-Pa55!word",
      folder: "Work",
      favorite: true,
      totp: "otpauth://totp/Code:dave?secret=KRSXG5CTMVRXEZLU&issuer=Code",
    });
    expect(json.credentials[0]).toMatchObject({
      notes: "Recovery codes in the safe",
      kind: "login",
      urls: [{ url: "https://gist.example.dev", match: "domain" }],
      fields: [{ name: "PIN", value: "4321", type: "hidden" }],
      changes: [],
    });
    expect(json.credentials[1]).toMatchObject({
      website: "stream.example.tv",
      folder: null,
      favorite: false,
      totp: null,
      urls: [],
      fields: [],
    });
    expect(json.credentials[2]).toMatchObject({
      name: "Wi-Fi at home",
      kind: "note",
      notes: "SSID home-net, key 0123456789",
      username: "",
      password: "",
    });
    const csv = parseImport(mgr1Csv);
    expect(csv.skipped).toEqual([]);
    expect(csv.credentials[0]).toMatchObject({
      name: "VPN",
      folder: "Work",
      favorite: true,
      password: "vpn,pass;1",
      notes: "Use the hardware key\nafter 6pm",
      fields: [{ name: "Domain", value: "CORP", type: "text" }],
    });
    expect(csv.credentials[1]).toMatchObject({
      url: "https://pizza.example.com",
      urls: [{ url: "https://m.pizza.example.com", match: "domain" }],
      totp: "JBSWY3DPEHPK3PXP",
      favorite: false,
    });
    expect(csv.credentials[2]).toMatchObject({
      name: "Passport",
      kind: "note",
      notes: "Number X1234567",
    });
  });

  it("source_mgr_2, _3 and _4 CSV shapes", () => {
    const two = parseImport(mgr2);
    expect(two.credentials.map((c) => c.name)).toEqual(["News", "Travel", "Server notes"]);
    expect(two.skipped).toEqual([]);
    expect(two.credentials[2]).toMatchObject({
      kind: "login",
      url: null,
      fields: [{ name: "Hostname", value: "db1", type: "text" }],
      sourceKind: "server",
      changes: ["a server in the source: kept as a login, its details as a named field"],
      folder: "Infra",
    });
    expect(two.credentials[1]).toMatchObject({
      password: 'fly "high" 9',
      folder: "Personal\\Trips",
      favorite: true,
      totp: "JBSWY3DPEHPK3PXP",
    });
    const three = parseImport(mgr3);
    expect(three.credentials.map((c) => c.name)).toEqual(["Cloud console", "Old forum", "Library"]);
    expect(three.skipped).toEqual([]);
    expect(three.credentials[1]).toMatchObject({
      tags: ["archived"],
      changes: ['archived in the source: tagged "archived"'],
      password: "forum123",
    });
    expect(three.credentials[0]).toMatchObject({
      tags: ["work", "admin"],
      favorite: true,
      notes: "Root account, break-glass only",
    });
    expect(three.credentials[2]).toMatchObject({
      website: "library.example.edu",
      username: "G12345",
    });
    const four = parseImport(mgr4);
    expect(four.credentials[0]).toMatchObject({
      name: "Photo site",
      username: "heidi@example.test",
      notes: "Family album",
      fields: [{ name: "Other username", value: "heidi.alt@example.test", type: "text" }],
      folder: "Personal",
    });
    expect(four.credentials[1]).toMatchObject({
      password: "p,a,y",
      totp: "JBSWY3DPEHPK3PXP",
      website: "pay.example.com",
    });
  });

  it("generic CSV and JSON", () => {
    expect(
      parseImport(genericCsv).credentials.map((c) => [c.name, c.website, c.username, c.password]),
    ).toEqual([
      ["Example Mail", "mail.example.com", "ivan@example.test", "mail-pass-1"],
      ["Game", "play.example.io", "ivan_the_gamer", "g@me, on"],
    ]);
    const json = parseImport(genericJson);
    expect(json.credentials).toHaveLength(3);
    expect(json.skipped).toEqual([]);
    expect(json.credentials[2]).toMatchObject({
      name: "Empty",
      notes: "nothing to import",
      kind: "login",
    });
    expect(json.credentials[0]).toMatchObject({
      name: "Dentist portal",
      tags: ["health"],
      notes: "Appointment every 6 months",
    });
    expect(json.credentials[1]).toMatchObject({
      name: "Electricity",
      website: "power.example.com",
      username: "judy@example.test",
      totp: "JBSWY3DPEHPK3PXP",
    });
  });
});

describe("client importers: end to end", () => {
  it("parsed credentials, encrypted on the client, go through POST /api/passwords/import", async () => {
    const { credentials, provider } = parseImport(mgr1Json);
    const vaultKey = (await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, true, [
      "encrypt",
      "wrapKey",
    ])) as CryptoKey;
    const b64 = (b: ArrayBuffer | Uint8Array) => btoa(String.fromCharCode(...new Uint8Array(b)));
    const entries = [];
    for (const c of credentials) {
      const itemKey = (await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, true, [
        "encrypt",
      ])) as CryptoKey;
      const iv = crypto.getRandomValues(new Uint8Array(12));
      const data = await crypto.subtle.encrypt(
        { name: "AES-GCM", iv },
        itemKey,
        new TextEncoder().encode(JSON.stringify(secretPayload(c))),
      );
      const wrapIv = crypto.getRandomValues(new Uint8Array(12));
      const wrapped = await crypto.subtle.wrapKey("raw", itemKey, vaultKey, {
        name: "AES-GCM",
        iv: wrapIv,
      });
      entries.push({
        name: c.name,
        website: c.website,
        tags: c.tags,
        wrapped_item_key: b64(new Uint8Array([...wrapIv, ...new Uint8Array(wrapped)])),
        encrypted_data: b64(new Uint8Array([...iv, ...new Uint8Array(data)])),
      });
    }
    const user = await TestUser.create();
    const res = await user.call("POST", "/api/passwords/import", { body: { provider, entries } });
    expect(await res.json()).toMatchObject({ success: true, imported: 3 });
    const list = (await (await user.call("GET", "/api/passwords")).json()) as {
      data: { name: string; website: string; encrypted_data: string }[];
    };
    expect(list.data.map((e) => e.name).sort()).toEqual([
      "Code host",
      "Streaming",
      "Wi-Fi at home",
    ]);
    expect(JSON.stringify(list)).not.toContain("gh-Pa55!word");
  });
});
