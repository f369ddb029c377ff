import { describe, expect, it } from "vitest";
import {
  FORMAT_LABELS,
  ImportFormatError,
  parseImport,
  readImportFile,
} from "../../core/importers/read";

const bytes = (s: string) => new TextEncoder().encode(s);
/** The error a read ends with (an ImportFormatError, never a raw TypeError). */
const refusal = (file: Uint8Array) =>
  readImportFile(file).then(
    () => {
      throw new Error("the file was read");
    },
    (err: unknown) => err as Error,
  );

const SOUND = {
  type: 1,
  name: "Sound login",
  login: { username: "sam", password: "pw-1", uris: [{ uri: "https://ok.example" }] },
};

describe("Bitwarden JSON: null where an object or array is expected", () => {
  it("a null item is skipped with its reason; the sound items are imported (async and sync readers)", async () => {
    const doc = JSON.stringify({ items: [null, SOUND, 7] });
    for (const out of [await readImportFile(bytes(doc)), parseImport(doc)]) {
      expect(out.credentials.map((c) => [c.name, c.username, c.url])).toEqual([
        ["Sound login", "sam", "https://ok.example"],
      ]);
      expect(out.skipped).toEqual([
        { name: "Item 1", reason: "not an item (null where an item object belongs)" },
        { name: "Item 3", reason: "not an item (a number where an item object belongs)" },
      ]);
    }
  });

  it("null login, uris, fields, history, collection ids and folder list: what is sound is kept", async () => {
    const out = await readImportFile(
      bytes(
        JSON.stringify({
          folders: null,
          collections: [null, { id: "c1", name: "Team" }],
          items: [
            {
              type: 1,
              name: "No uris",
              folderId: "f-gone",
              login: { username: "ann", password: "a-pw", uris: null, fido2Credentials: null },
              fields: null,
              passwordHistory: null,
              collectionIds: null,
            },
            {
              type: 1,
              name: "Null parts",
              login: {
                username: "bo",
                password: "b-pw",
                uris: [null, { uri: null }, { uri: "b.example" }],
              },
              fields: [null, { name: "PIN", value: "12", type: 1 }],
              passwordHistory: [
                null,
                { password: "old", lastUsedDate: "2024-01-01T00:00:00.000Z" },
              ],
              collectionIds: [null, "c1"],
            },
            { type: 1, name: "Login null", login: null, notes: "kept text" },
          ],
        }),
      ),
    );
    expect(out.skipped).toEqual([]);
    expect(out.credentials.map((c) => [c.name, c.kind, c.url, c.folder])).toEqual([
      ["No uris", "login", null, null],
      ["Null parts", "login", "b.example", "Team"],
      ["Login null", "note", null, null],
    ]);
    expect(out.credentials[1]).toMatchObject({
      fields: [{ name: "PIN", value: "12", type: "hidden" }],
      history: [{ password: "old", changed_at: "2024-01-01T00:00:00.000Z" }],
    });
    expect(out.credentials[2]!.notes).toBe("kept text");
  });

  it("a file without items, or encrypted without its key material, is refused with a sentence", async () => {
    for (const [doc, said] of [
      [{ items: null }, /^Not a Bitwarden JSON export: no items array/],
      [{ encrypted: true }, /encrypted with your Bitwarden account's key/],
      [
        { encrypted: true, passwordProtected: true },
        /^This password-protected Bitwarden export lacks its salt, .* and encrypted data, so no password can open it/,
      ],
      [
        { encrypted: true, passwordProtected: true, data: "2.a|b|c" },
        /^This password-protected Bitwarden export lacks its salt/,
      ],
    ] as const) {
      const err = await refusal(bytes(JSON.stringify(doc)));
      expect(err).toBeInstanceOf(ImportFormatError);
      expect(err.message).toMatch(said);
    }
  });
});

describe("Bitwarden JSON: organisation exports", () => {
  it("an item with only a name and a collection is a secure note filed under the collection", async () => {
    const out = await readImportFile(
      bytes(
        JSON.stringify({
          collections: [{ id: "c1", name: "Finance" }],
          folders: [{ id: "f1", name: "Mine" }],
          items: [
            { name: "Bank codes", collectionIds: ["c1"], organizationId: "o1" },
            { ...SOUND, folderId: "f1", collectionIds: ["c1"] },
          ],
        }),
      ),
    );
    expect(out.skipped).toEqual([]);
    expect(out.credentials[0]).toMatchObject({
      name: "Bank codes",
      kind: "note",
      folder: "Finance",
      tags: ["Finance"],
    });
    expect(out.credentials[0]!.changes).toContain("no login details: kept as a secure note");
    expect(out.credentials[0]!.changes).toContain('collection "Finance" is its folder');
    // Its own folder wins over a collection.
    expect(out.credentials[1]).toMatchObject({ name: "Sound login", folder: "Mine" });
  });
});

describe("formats the vault does not read are named, with what it reads", () => {
  const reads = Object.values(FORMAT_LABELS);
  const namesWhatWeRead = (msg: string) => {
    expect(msg).toContain("The vault reads:");
    for (const label of reads) expect(msg).toContain(label);
  };

  it("Keeper JSON", async () => {
    const keeper = JSON.stringify({
      shared_folders: [{ path: "Team", manage_users: false }],
      records: [
        {
          title: "Mail",
          login: "k@example.com",
          password: "kp",
          login_url: "https://mail.example",
        },
      ],
    });
    for (const format of [undefined, "source_mgr_1", "generic"] as const) {
      const err = await readImportFile(bytes(keeper), { format }).catch((e: Error) => e);
      expect(err).toBeInstanceOf(ImportFormatError);
      expect((err as Error).message).toMatch(/^This looks like a Keeper export \(JSON\)\./);
      expect((err as Error).message).toMatch(/choose Generic CSV/);
      namesWhatWeRead((err as Error).message);
    }
    expect(() => parseImport(keeper)).toThrow(/^This looks like a Keeper export \(JSON\)/);
  });

  it("SafeInCloud XML", async () => {
    const xml = `<?xml version="1.0" encoding="utf-8"?>\n<database>\n<label name="Web" id="1"/>\n<card title="Mail" id="2"><field name="Login" type="login">me</field><field name="Password" type="password">pw</field></card>\n</database>\n`;
    const err = await refusal(bytes(xml));
    expect(err).toBeInstanceOf(ImportFormatError);
    expect(err.message).toMatch(/^This looks like a SafeInCloud export \(XML\)\./);
    namesWhatWeRead(err.message);
    const chosen = await readImportFile(bytes(xml), { format: "generic" }).catch((e: Error) => e);
    expect((chosen as Error).message).toMatch(/^This looks like a SafeInCloud export \(XML\)/);
  });

  it("a KeePass 1 database (.kdb) by its signature", async () => {
    const kdb = new Uint8Array(124);
    kdb.set([0x03, 0xd9, 0xa2, 0x9a, 0x65, 0xfb, 0x4b, 0xb5, 0x03, 0x00, 0x00, 0x00]);
    for (const format of [undefined, "keepass", "generic"] as const) {
      const err = await readImportFile(kdb, { format }).catch((e: Error) => e);
      expect(err).toBeInstanceOf(ImportFormatError);
      expect((err as Error).message).toMatch(
        /^This looks like a KeePass 1 database \(KDB\)\..*save it as a KDBX database/,
      );
      namesWhatWeRead((err as Error).message);
    }
  });

  it("other JSON, XML and binary files say what they seem to be", async () => {
    const json = await refusal(bytes('{"version": 2, "entries": [{"site": "x"}]}'));
    expect(json.message).toMatch(
      /^This looks like a JSON file that is none of the exports the vault reads\./,
    );
    namesWhatWeRead(json.message);
    const xml = await refusal(bytes('<?xml version="1.0"?><passwords><pw/></passwords>'));
    expect(xml.message).toMatch(/^This looks like an XML file \(its root element is <passwords>\)/);
    namesWhatWeRead(xml.message);
    const bin = await refusal(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 13, 0xff, 0xfe]));
    expect(bin.message).toMatch(/^This looks like a binary file/);
    namesWhatWeRead(bin.message);
    // A Bitwarden-shaped file keeps Bitwarden's own message.
    expect((await refusal(bytes('{"items": 3}'))).message).toMatch(/no items array/);
  });
});

describe("text as the vault keeps it", () => {
  it("notes and multi-line fields get \\n line ends; passwords stay as written", () => {
    const out = parseImport(
      JSON.stringify({
        items: [
          {
            type: 1,
            name: "Lines",
            notes: "one\r\ntwo\rthree",
            fields: [{ name: "Codes", value: "a\r\nb", type: 0 }],
            login: { username: "u", password: "p\r\nq" },
          },
        ],
      }),
    );
    expect(out.credentials[0]).toMatchObject({
      notes: "one\ntwo\nthree",
      fields: [{ name: "Codes", value: "a\nb", type: "text" }],
      password: "p\r\nq",
    });
    const csv = parseImport(
      'name,url,username,password,note\r\nX,https://x.example,u,p,"a\r\nb"\r\n',
    );
    expect(csv.credentials[0]!.notes).toBe("a\nb");
  });

  it("Chrome's android:// addresses become the app's androidapp:// address", () => {
    const out = parseImport(
      "name,url,username,password,note\n" +
        "App,android://Jzj5T2E45Hb33D-lk-EHZVCrb7a064dEicTwrTYQYcKn4VJqA==@com.example.app/,ann,pw,\n",
    );
    expect(out.credentials[0]).toMatchObject({
      url: "androidapp://com.example.app",
      website: null,
      name: "App",
    });
    expect(out.credentials[0]!.changes).toEqual([
      "Android app address kept as androidapp://com.example.app (its signing-key hash is not kept)",
    ]);
  });
});
