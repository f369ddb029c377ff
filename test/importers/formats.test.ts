import { strToU8, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import {
  detectFormat,
  ImportFormatError,
  parseCsv,
  parseImport,
  readImportFile,
  WrongPasswordError,
} from "../../core/importers/read";
import onePassword7 from "../fixtures/imports/1password7.csv?raw";
import dashCreds from "../fixtures/imports/dashlane-credentials.csv?raw";
import dashInfo from "../fixtures/imports/dashlane-personalinfo.csv?raw";
import dashNotes from "../fixtures/imports/dashlane-securenotes.csv?raw";
import firefoxAccounts from "../fixtures/imports/firefox-accounts.csv?raw";
import keepassxc from "../fixtures/imports/keepassxc.csv?raw";
import nordpass from "../fixtures/imports/nordpass.csv?raw";
import onePuxData from "../fixtures/imports/onepux-export.data?raw";
import proton from "../fixtures/imports/proton.json?raw";
import safariOld from "../fixtures/imports/safari-old.csv?raw";
import { protectedBitwardenExport } from "./bitwarden-export";

const bytes = (s: string) => new TextEncoder().encode(s);

describe("CSV reader (RFC 4180 and what exporters really write)", () => {
  it("reads quoted commas, newlines, doubled quotes, a BOM and CRLF", () => {
    expect(parseCsv('\uFEFFa,b\r\n"x,1","line\r\nbreak"\r\n"say ""hi""",\r\n')).toEqual([
      ["a", "b"],
      ["x,1", "line\r\nbreak"],
      ['say "hi"', ""],
    ]);
  });

  it("reads backslash-escaped quotes (1Password 7) without splitting the row", () => {
    const out = parseImport(onePassword7);
    expect(out.format).toBe("source_mgr_3");
    expect(out.credentials).toHaveLength(2);
    expect(out.credentials[0]).toMatchObject({
      name: "Quote club",
      url: "https://quotes.example.com",
      website: "quotes.example.com",
      username: "quinn",
      password: 'he said "hi", then left',
      notes: 'Line one\nLine "two"',
      changes: [],
    });
    expect(out.credentials[1]).toMatchObject({
      name: "Only a note",
      username: "",
      password: "",
      notes: "Remember the milk",
    });
    expect(out.skipped).toEqual([
      {
        name: "Empty card",
        reason: "nothing to store: no username, password, notes, TOTP or fields",
      },
    ]);
  });
});

describe("detection and browser files", () => {
  it("the older Safari header (Title,Url,…,OTPAuth without Notes)", () => {
    expect(detectFormat(safariOld)).toBe("source_browser");
    expect(parseImport(safariOld).credentials).toEqual([
      expect.objectContaining({
        name: "Old Safari shop",
        website: "old.example.com",
        username: "olga",
        password: 'pa"ss',
        totp: null,
      }),
    ]);
  });

  it("Firefox's own account row is skipped with the reason, never imported as a password", () => {
    const out = parseImport(firefoxAccounts);
    expect(out.credentials.map((c) => [c.website, c.username, c.password])).toEqual([
      ["shop.example.com", "ruth", "ruths-pass"],
    ]);
    expect(out.skipped).toEqual([
      {
        name: "Firefox Accounts",
        reason: "Firefox's own sync account (its keys, not a website password)",
      },
    ]);
    expect(JSON.stringify(out.credentials)).not.toContain("kSync");
  });
});

describe("Dashlane", () => {
  it("otpUrl becomes the TOTP; secure notes become notes; personal info becomes an identity", () => {
    const creds = parseImport(dashCreds);
    expect(creds.provider).toBe("source_mgr_4");
    expect(creds.credentials).toEqual([
      expect.objectContaining({
        name: "Chat",
        url: "https://chat.example.com",
        username: "sam@example.test",
        password: "ch@t-2",
        totp: "otpauth://totp/Chat:sam?secret=JBSWY3DPEHPK3PXP&issuer=Chat",
        folder: "Social",
        fields: [],
      }),
    ]);
    const notes = parseImport(dashNotes);
    expect(notes.format).toBe("source_mgr_4");
    expect(notes.credentials).toEqual([
      expect.objectContaining({ name: "Locker code", kind: "note", notes: "Gym locker: 4-12-33" }),
    ]);
    const info = parseImport(dashInfo);
    expect(info.format).toBe("source_mgr_4");
    expect(info.credentials).toEqual([
      expect.objectContaining({
        name: "Mr Sam Lee",
        kind: "identity",
        identity: { title: "Mr", first_name: "Sam", last_name: "Lee" },
        fields: [{ name: "Date of birth", value: "1990-01-01", type: "text" }],
      }),
    ]);
  });
});

describe("NordPass and KeePassXC CSV", () => {
  it("NordPass: folder, extra addresses, typed custom fields, cards; folder rows declare only", () => {
    const out = parseImport(nordpass);
    expect(out.format).toBe("nordpass");
    expect(out.provider).toBe("generic");
    expect(out.skipped).toEqual([]);
    expect(out.credentials).toHaveLength(2);
    expect(out.credentials[0]).toEqual({
      name: "Git forge",
      url: "https://git.example.com",
      website: "git.example.com",
      username: "tara",
      password: "f0rge!",
      notes: "Team account",
      totp: null,
      tags: [],
      folder: "Work",
      favorite: false,
      kind: "login",
      urls: [
        { url: "https://ci.example.com", match: "domain" },
        { url: "https://registry.example.com", match: "domain" },
      ],
      fields: [
        { name: "Recovery PIN", value: "9911", type: "hidden" },
        { name: "Team", value: "infra", type: "text" },
      ],
      history: [],
      changes: [],
    });
    expect(out.credentials[1]).toMatchObject({
      name: "Travel card",
      kind: "card",
      card: {
        cardholder: "Tara Q",
        number: "4111111111111111",
        code: "123",
        exp_month: "09",
        exp_year: "29",
      },
      url: null,
    });
  });

  it("KeePassXC: the group path below the root becomes the folder", () => {
    const out = parseImport(keepassxc);
    expect(out.format).toBe("keepassxc");
    expect(
      out.credentials.map((c) => [
        c.name,
        c.folder,
        c.username,
        c.password,
        c.website,
        c.notes,
        c.totp,
      ]),
    ).toEqual([
      [
        "Mail host",
        "Email",
        "uma@example.test",
        "m@il-pass",
        "mail.example.org",
        "IMAP on 993",
        "otpauth://totp/Mail:uma?secret=JBSWY3DPEHPK3PXP",
      ],
      ["Router", null, "admin", "r0uter", "10.0.0.1", "", null],
    ]);
  });
});

describe("Proton Pass", () => {
  const check = (out: Awaited<ReturnType<typeof readImportFile>>) => {
    expect(out.format).toBe("proton_pass");
    expect(out.credentials).toHaveLength(3);
    expect(out.credentials[0]).toEqual({
      name: "Forum",
      url: "https://forum.example.net",
      website: "forum.example.net",
      username: "vic",
      password: "f0rum!",
      notes: "Moderator account",
      totp: "otpauth://totp/Forum:vic?secret=JBSWY3DPEHPK3PXP",
      tags: [],
      folder: "Personal",
      favorite: true,
      kind: "login",
      urls: [{ url: "https://m.forum.example.net", match: "domain" }],
      fields: [
        { name: "Email", value: "vic@example.test", type: "text" },
        { name: "Backup code", value: "BK-77", type: "hidden" },
        { name: "Member no", value: "M-5", type: "text" },
      ],
      history: [],
      changes: [],
    });
    expect(out.credentials[1]).toMatchObject({
      name: "Boat keys",
      kind: "note",
      notes: "Marina locker 7",
      folder: "Personal",
    });
    expect(out.credentials[2]).toMatchObject({
      name: "Debit",
      kind: "card",
      card: {
        cardholder: "Vic Doe",
        number: "5500000000000004",
        code: "321",
        exp_month: "04",
        exp_year: "2028",
      },
      fields: [{ name: "PIN", value: "0000", type: "hidden" }],
    });
    expect(out.skipped).toEqual([{ name: "Old shop", reason: "in the source's trash" }]);
  };

  it("JSON and the same inside its zip", async () => {
    check(await readImportFile(bytes(proton)));
    check(await readImportFile(zipSync({ "Proton Pass/data.json": strToU8(proton) })));
  });

  it("an encrypted (PGP) export is refused with what to do", () => {
    expect(() =>
      parseImport(JSON.stringify({ version: "1", encrypted: true, vaults: {} })),
    ).toThrow(/encrypted with PGP\. In Proton Pass, export again without encryption/);
  });
});

describe("1Password 1PUX", () => {
  const pux = zipSync({
    "export.attributes": strToU8('{"version":3}'),
    "export.data": strToU8(onePuxData),
    "files/abc__Scan.pdf": new Uint8Array([1, 2, 3]),
  });

  it("every field of every item; archived kept and said; documents skipped with the reason", async () => {
    const out = await readImportFile(pux);
    expect(out.format).toBe("onepux");
    expect(out.provider).toBe("source_mgr_3");
    expect(out.credentials).toHaveLength(3);
    expect(out.credentials[0]).toEqual({
      name: "Bank",
      url: "https://bank.example.com",
      website: "bank.example.com",
      username: "wendy",
      password: "W3ndy!pass",
      notes: "Main account",
      totp: "otpauth://totp/Bank:wendy?secret=JBSWY3DPEHPK3PXP",
      tags: ["finance"],
      folder: "Private",
      favorite: true,
      kind: "login",
      urls: [{ url: "https://app.bank.example.com", match: "domain" }],
      fields: [
        { name: "remember", value: "true", type: "boolean" },
        { name: "PIN", value: "2468", type: "hidden" },
        { name: "Branch", value: "North", type: "text" },
      ],
      history: [{ password: "OldW3ndy", changed_at: "2023-07-22T04:26:40.000Z" }],
      changes: [],
    });
    expect(out.credentials[1]).toMatchObject({
      name: "House",
      kind: "note",
      notes: "Alarm code 1234",
      tags: ["archived"],
      changes: ['archived in the source: tagged "archived"'],
    });
    expect(out.credentials[2]).toMatchObject({
      name: "Visa",
      kind: "card",
      card: {
        cardholder: "Wendy W",
        number: "4111111111111111",
        code: "999",
        exp_month: "12",
        exp_year: "2027",
      },
    });
    expect(out.skipped).toEqual([
      {
        name: "Scan.pdf",
        reason:
          "a 1Password document: files are not imported (download it from 1Password and attach it to an entry)",
      },
    ]);
  });

  it("errors name the format actually found", async () => {
    await expect(readImportFile(pux, { format: "proton_pass" })).rejects.toThrow(
      /not a Proton Pass export \(no data\.json inside\)/,
    );
    await expect(readImportFile(zipSync({ "a.txt": strToU8("x") }))).rejects.toThrow(
      /not a 1Password 1PUX, Proton Pass or Dashlane CSV export/,
    );
    await expect(readImportFile(bytes(onePuxData))).resolves.toMatchObject({ format: "onepux" });
  });
});

describe("Bitwarden password-protected JSON", () => {
  it("opens with the export password (PBKDF2) and reads every item", async () => {
    const plain = {
      encrypted: false,
      folders: [],
      items: [
        {
          type: 1,
          name: "Locked site",
          favorite: false,
          notes: "n",
          fields: [{ name: "Q", value: "A", type: 0 }],
          passwordHistory: [{ password: "older", lastUsedDate: "2024-05-01T00:00:00.000Z" }],
          login: {
            username: "xena",
            password: "x-pass",
            totp: null,
            uris: [{ uri: "https://locked.example.com", match: 3 }],
          },
        },
      ],
    };
    const file = await protectedBitwardenExport(JSON.stringify(plain), "export-pw", 5000);
    await expect(readImportFile(bytes(file))).rejects.toThrow(/protected by a password/);
    await expect(readImportFile(bytes(file), { password: "wrong" })).rejects.toThrow(
      WrongPasswordError,
    );
    const out = await readImportFile(bytes(file), { password: "export-pw" });
    expect(out.format).toBe("source_mgr_1");
    expect(out.credentials).toEqual([
      {
        name: "Locked site",
        url: "https://locked.example.com",
        website: "locked.example.com",
        username: "xena",
        password: "x-pass",
        notes: "n",
        totp: null,
        tags: [],
        folder: null,
        favorite: false,
        kind: "login",
        urls: [],
        fields: [{ name: "Q", value: "A", type: "text" }],
        history: [{ password: "older", changed_at: "2024-05-01T00:00:00.000Z" }],
        changes: [],
      },
    ]);
  });

  it("an altered file is refused, not half read", async () => {
    const file = JSON.parse(await protectedBitwardenExport("{}", "pw", 5000)) as { data: string };
    const [iv, ct, mac] = file.data.slice(2).split("|");
    const altered = JSON.stringify({
      ...file,
      data: `2.${iv}|${ct.startsWith("A") ? "B" : "A"}${ct.slice(1)}|${mac}`,
    });
    await expect(readImportFile(bytes(altered), { password: "pw" })).rejects.toThrow(
      ImportFormatError,
    );
  });

  it("a KDBX database asks for its master password or key file; a cut one is named as such first", async () => {
    const signature = [0x03, 0xd9, 0xa2, 0x9a, 0x67, 0xfb, 0x4b, 0xb5];
    const cut = new Uint8Array([...signature, 0, 0]);
    await expect(readImportFile(cut)).rejects.toThrow(
      /^This KeePass database is cut short: it ends at byte 10, inside its header/,
    );
    // KDBX 4 whose structure is whole (end-of-header field, header hash and HMAC, the last
    // block), but whose header holds nothing a database needs.
    const whole = new Uint8Array(12 + 5 + 64 + 36);
    whole.set([...signature, 0, 0, 4, 0]);
    await expect(readImportFile(whole)).rejects.toThrow(
      /KeePass database is locked: enter its master password, choose its key file, or both/,
    );
    const err = await readImportFile(whole, { password: "pw" }).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(WrongPasswordError);
    expect((err as Error).message).toMatch(/^This KeePass database (cannot be read|uses a format)/);
  });
});
