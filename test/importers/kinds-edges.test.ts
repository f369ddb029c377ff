import { describe, expect, it } from "vitest";
import { kindSummary } from "../../core/importers/kinds";
import { parseImport } from "../../core/importers/read";

const LASTPASS = "url,username,password,totp,extra,name,grouping,fav";
const row = (extra: string, name: string, username = "", password = "") =>
  `http://sn,${username},${password},,"${extra.replace(/"/g, '""')}",${name},,0`;

describe("nothing of a row is lost at the edges", () => {
  it("LastPass: a typed note's own username and password columns are kept; an empty date is no field", () => {
    const out = parseImport(
      [
        LASTPASS,
        row("NoteType:Bank Account\nBank Name:Quay\nNotes:", "Quay", "qa-user", "qa-pass"),
        row("NoteType:Server\nHostname:db2\nUsername:\nPassword:\nNotes:", "DB two", "dba", "s3rv"),
        row("NoteType:Credit Card\nNumber:4111111111111111\nExpiration Date:,\nNotes:", "No date"),
        row("NoteType:\nColour:blue\nNotes:free text\nsecond line", "Untyped"),
      ].join("\n"),
    );
    expect(out.skipped).toEqual([]);
    const [bank, server, card, untyped] = out.credentials;
    expect(bank!.fields).toEqual([
      { name: "Bank Name", value: "Quay", type: "text" },
      { name: "Username", value: "qa-user", type: "text" },
      { name: "Password", value: "qa-pass", type: "hidden" },
    ]);
    expect(server).toMatchObject({ kind: "login", username: "dba", password: "s3rv" });
    expect(card).toMatchObject({ kind: "card", fields: [] });
    expect(card!.card).toEqual({ number: "4111111111111111", brand: "Visa" });
    expect(untyped).toMatchObject({
      kind: "note",
      notes: "free text\nsecond line",
      fields: [{ name: "Colour", value: "blue", type: "text" }],
    });
  });

  it("1Password 7: every address of a row, from each of its address columns; an unknown item type is a note", () => {
    const out = parseImport(
      [
        '"Title","Type","Username","Password","URLs","URL","Notes","Wallet Address"',
        '"Shop","Login","sam","pw","https://a.example.com\nhttps://b.example.com","https://c.example.com","",""',
        '"Cold storage","Crypto Wallet","","","","https://wallet.example.com","seed in the safe","bc1qexample"',
      ].join("\n"),
    );
    expect(out.credentials[0]!.url).toBe("https://a.example.com");
    expect(out.credentials[0]!.urls.map((u) => u.url)).toEqual([
      "https://b.example.com",
      "https://c.example.com",
    ]);
    expect(out.credentials[1]).toMatchObject({
      kind: "note",
      sourceKind: "crypto wallet",
      notes: "seed in the safe",
      fields: [
        { name: "Wallet Address", value: "bc1qexample", type: "text" },
        { name: "URL", value: "https://wallet.example.com", type: "text" },
      ],
      changes: [
        "a crypto wallet in the source: kept as a secure note, its details as 2 named fields",
      ],
    });
    // A type named like an object's own property is only an unknown type.
    const odd = parseImport(
      '"Title","Type","Notes"\n"A","constructor","x"\n"B","__proto__","y"\n',
    ).credentials;
    expect(odd.map((c) => [c.kind, c.sourceKind])).toEqual([
      ["note", "constructor"],
      ["note", "__proto__"],
    ]);
    expect(kindSummary(out.credentials)).toBe(
      "1 login, 1 secure note; kept as the nearest kind: 1 crypto wallet (as a secure note)",
    );
  });
});
