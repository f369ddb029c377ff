import { describe, expect, it } from "vitest";
import { KdbxCredentials } from "kdbxweb";
import { readImportFile, WrongPasswordError } from "../../core/importers/read";
import { PasswordNeededError } from "../../core/importers/read";
import { buildKdbx, KEEPASS_PASSWORD, KEEPASS_XML } from "./keepass-files";

/** The items buildKdbx writes, as the importer must give them back: every field of every item. */
const EXPECTED = {
  credentials: [
    {
      name: "Bank",
      url: "https://bank.example.org",
      website: "bank.example.org",
      username: "alice",
      password: "bank-pw",
      notes: "",
      totp: "otpauth://totp/Bank?secret=GEZDGNBVGY3TQOJQ&digits=8&period=60&algorithm=SHA-256",
      tags: [],
      folder: null,
      favorite: false,
      kind: "login",
      urls: [{ url: "https://app.bank.example.org", match: "domain" }],
      fields: [],
      history: [],
      changes: [],
    },
    {
      name: "Wi-Fi",
      url: null,
      website: null,
      username: "",
      password: "",
      notes: "SSID home, WPA2",
      totp: null,
      tags: [],
      folder: "Personal",
      favorite: false,
      kind: "note",
      urls: [],
      fields: [],
      history: [],
      changes: [],
    },
    {
      name: "Mail",
      url: "https://mail.example.com/login",
      website: "mail.example.com",
      username: "alice@example.com",
      password: "current-pw",
      notes: "Two lines\nof notes",
      totp: "otpauth://totp/Mail:alice?secret=JBSWY3DPEHPK3PXP&issuer=Mail",
      tags: ["work", "mail"],
      folder: "Personal/Email",
      favorite: false,
      kind: "login",
      urls: [
        { url: "https://webmail.example.com", match: "domain" },
        { url: "https://imap.example.com", match: "domain" },
      ],
      fields: [
        { name: "Recovery code", value: "RC-1234-5678", type: "hidden" },
        { name: "Account id", value: "A-42", type: "text" },
        { name: "Expires", value: "2030-01-31", type: "text" },
      ],
      history: [
        { password: "second-pw", changed_at: "2026-01-01T00:00:00.000Z" },
        { password: "first-pw", changed_at: "2025-01-01T00:00:00.000Z" },
      ],
      changes: [
        'expiry date 2030-01-31 kept as the field "Expires"',
        'attachment "backup-codes.txt" not imported (save it from KeePass and attach it to the entry here)',
      ],
    },
  ],
  skipped: [
    { name: "Old forum", reason: "in KeePass's Recycle Bin" },
    {
      name: "Placeholder",
      reason: "nothing to store: no username, password, notes, TOTP or fields",
    },
  ],
};

const byName = <T extends { name: string }>(xs: T[]) =>
  [...xs].sort((a, b) => a.name.localeCompare(b.name));
function expectKnownItems(out: {
  credentials: { name: string }[];
  skipped: { name: string }[];
  provider: string;
  format: string;
}) {
  expect(out.provider).toBe("generic");
  expect(out.format).toBe("keepass");
  expect(byName(out.credentials)).toEqual(byName(EXPECTED.credentials));
  expect(byName(out.skipped)).toEqual(byName(EXPECTED.skipped));
}

describe("KeePass importer: KDBX databases", () => {
  it("KDBX 4 with Argon2id: every field of every item, the Recycle Bin skipped", async () => {
    const file = await buildKdbx({ version: 4, kdf: "argon2id" });
    expectKnownItems(await readImportFile(file, { password: KEEPASS_PASSWORD }));
  });

  it("KDBX 4 with Argon2d reads the same", async () => {
    const file = await buildKdbx({ version: 4, kdf: "argon2d" });
    expectKnownItems(await readImportFile(file, { password: KEEPASS_PASSWORD }));
  });

  it("KDBX 3.1 with AES-KDF reads the same", async () => {
    const file = await buildKdbx({ version: 3 });
    expect(new DataView(file.buffer, file.byteOffset).getUint16(10, true)).toBe(3);
    expectKnownItems(await readImportFile(file, { password: KEEPASS_PASSWORD }));
  });

  it("KDBX 4 with AES-KDF reads the same", async () => {
    expectKnownItems(
      await readImportFile(await buildKdbx({ version: 4, kdf: "aes" }), {
        password: KEEPASS_PASSWORD,
      }),
    );
  });

  it("asks for the password (or key file) first; a wrong password is refused with a message to retry", async () => {
    const file = await buildKdbx({ version: 4, kdf: "argon2id" });
    await expect(readImportFile(file)).rejects.toBeInstanceOf(PasswordNeededError);
    await expect(readImportFile(file)).rejects.toThrow(
      /master password, choose its key file, or both/,
    );
    const wrong = readImportFile(file, { password: "wrong horse" });
    await expect(wrong).rejects.toBeInstanceOf(WrongPasswordError);
    await expect(readImportFile(file, { password: "wrong horse" })).rejects.toThrow(
      "The password or key file does not open this KeePass database",
    );
  });

  it("a database locked with a password and a key file needs both; a key file alone opens a key-file-only one", async () => {
    const keyFile = await KdbxCredentials.createRandomKeyFile(2);
    const other = await KdbxCredentials.createRandomKeyFile(2);
    const both = await buildKdbx({ version: 4, kdf: "argon2id", keyFile });
    expectKnownItems(await readImportFile(both, { password: KEEPASS_PASSWORD, keyFile }));
    await expect(readImportFile(both, { password: KEEPASS_PASSWORD })).rejects.toBeInstanceOf(
      WrongPasswordError,
    );
    await expect(
      readImportFile(both, { password: KEEPASS_PASSWORD, keyFile: other }),
    ).rejects.toBeInstanceOf(WrongPasswordError);
    await expect(readImportFile(both, { keyFile })).rejects.toBeInstanceOf(WrongPasswordError);
    const keyOnly = await buildKdbx({ version: 3, keyFile, password: null });
    expectKnownItems(await readImportFile(keyOnly, { keyFile }));
  });

  it("a damaged database is refused as damaged, not as a wrong password", async () => {
    const file = await buildKdbx({ version: 4, kdf: "aes" });
    // Whole but altered: one byte of the encrypted blocks flipped (their HMAC then fails).
    const altered = file.slice();
    altered[Math.floor(file.length * 0.75)]! ^= 0xff;
    const err = await readImportFile(altered, { password: KEEPASS_PASSWORD }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(WrongPasswordError);
    expect((err as Error).message).toMatch(
      /^This KeePass database cannot be read: it looks damaged/,
    );
  });
});

describe("KeePass importer: a file cut short is not a wrong password", () => {
  // Cut inside the signature's header, inside a header field, after the header (KDBX 4: in its
  // hash, HMAC or blocks; KDBX 3: in its encrypted payload) and one byte before the end.
  for (const opts of [
    { version: 3 },
    { version: 4, kdf: "aes" },
    { version: 4, kdf: "argon2id" },
  ] as const) {
    it(`KDBX ${opts.version}${"kdf" in opts ? ` (${opts.kdf})` : ""}: every cut is named as cut short, with the right password or a wrong one`, async () => {
      const file = await buildKdbx(opts);
      for (const at of [
        20,
        60,
        200,
        300,
        Math.floor(file.length / 2),
        file.length - 17,
        file.length - 1,
      ]) {
        for (const password of [KEEPASS_PASSWORD, "wrong horse"]) {
          const err = await readImportFile(file.slice(0, at), { password }).catch(
            (e: unknown) => e,
          );
          expect(err, `cut at ${at} of ${file.length}`).not.toBeInstanceOf(WrongPasswordError);
          expect((err as Error).message, `cut at ${at} of ${file.length}`).toMatch(
            /^This KeePass database is cut short: it ends at byte \d+, inside its (header|data)\. Copy the \.kdbx file again/,
          );
        }
      }
      // The whole file with a wrong password is still a wrong password.
      await expect(readImportFile(file, { password: "wrong horse" })).rejects.toBeInstanceOf(
        WrongPasswordError,
      );
    });
  }
});

describe("KeePass importer: KeePass 2 XML", () => {
  it("reads every field of every item, detected from the file", async () => {
    const out = await readImportFile(new TextEncoder().encode(`\uFEFF${KEEPASS_XML}`));
    expect(out.format).toBe("keepass");
    expect(byName(out.credentials)).toEqual([
      {
        name: "Shop & Co",
        url: "https://shop.example.net",
        website: "shop.example.net",
        username: "bob",
        password: "s3cr<t",
        notes: "Line one\nLine two",
        totp: "otpauth://totp/Shop%20%26%20Co?secret=JBSWY3DPEHPK3PXP&digits=6&period=30",
        tags: ["shop", "home"],
        folder: null,
        favorite: false,
        kind: "login",
        urls: [],
        fields: [
          { name: "PIN", value: "9876", type: "hidden" },
          { name: "Customer no", value: "C-77", type: "text" },
          { name: "Expires", value: "2027-06-30", type: "text" },
        ],
        history: [{ password: "older", changed_at: "2026-02-01T10:00:00.000Z" }],
        changes: ['expiry date 2027-06-30 kept as the field "Expires"'],
      },
      {
        name: "VPN",
        url: "https://vpn.corp.example",
        website: "vpn.corp.example",
        username: "bob.w",
        password: "vpn-pw",
        notes: "",
        totp: null,
        tags: [],
        folder: "Work",
        favorite: false,
        kind: "login",
        urls: [],
        fields: [],
        history: [],
        changes: [],
      },
    ]);
    expect(out.skipped).toEqual([{ name: "Deleted", reason: "in KeePass's Recycle Bin" }]);
  });

  it("a file that is not KeePass XML, read as KeePass, is refused with the format's name", async () => {
    await expect(
      readImportFile(new TextEncoder().encode("name,url\nx,y"), { format: "keepass" }),
    ).rejects.toThrow(/KeePass/);
    await expect(
      readImportFile(new TextEncoder().encode("<KeePassFile><Root>"), { format: "keepass" }),
    ).rejects.toThrow(/KeePass/);
  });
});
