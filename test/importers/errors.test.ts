import { describe, expect, it } from "vitest";
import { ImportFormatError, parseCsv, parseImport } from "../../core/importers/read";
import mgr1Json from "../fixtures/imports/mgr1.json?raw";
import mgr2 from "../fixtures/imports/mgr2.csv?raw";

describe("client importers: bad files", () => {
  it("refuses a file that is not the chosen provider's format, naming what is missing", () => {
    expect(() => parseImport(mgr2, "source_mgr_3")).toThrow(ImportFormatError);
    expect(() => parseImport(mgr2, "source_mgr_3")).toThrow(/missing column\(s\) title/);
    expect(() => parseImport("a,b\n1,2", "generic")).toThrow(
      /missing column\(s\) name, url, username, password/,
    );
    expect(() => parseImport("[1,2", "generic")).toThrow(/not valid JSON/);
    expect(() => parseImport('{"items": 3}', "source_mgr_1")).toThrow(/no items array/);
    expect(() => parseImport('{"a": 1}', "generic")).toThrow(/must be an array/);
  });

  it("asks for the password of a password-protected source_mgr_1 export; explains an account-key one", () => {
    const locked = JSON.stringify({
      encrypted: true,
      passwordProtected: true,
      salt: "s",
      kdfType: 0,
      kdfIterations: 600000,
      encKeyValidation_DO_NOT_EDIT: "2.a|b|c",
      data: "2.a|b|c",
    });
    expect(() => parseImport(locked)).toThrow(/protected by a password: enter it/);
    const accountKey = JSON.stringify({
      ...JSON.parse(mgr1Json),
      encrypted: true,
      encKeyValidation_DO_NOT_EDIT: "2.a|b|c",
    });
    expect(() => parseImport(accountKey)).toThrow(
      /encrypted with your Bitwarden account's key .*export again as \.json \(Encrypted\) with the file type "Password protected"/,
    );
  });

  it("refuses an empty file and an unterminated quoted field", () => {
    expect(() => parseImport("", "generic")).toThrow(/empty/);
    expect(() => parseCsv('name,url\n"unterminated,x')).toThrow(/quoted field/);
  });

  it("skips generic JSON items that are not objects instead of failing the file", () => {
    const out = parseImport(
      JSON.stringify([null, "x", [1], { username: "u", password: "p" }]),
      "generic",
    );
    expect(out.credentials).toHaveLength(1);
    expect(out.skipped).toEqual(
      [1, 2, 3].map((n) => ({ name: `Item ${n}`, reason: "not an object" })),
    );
  });

  it("tolerates short rows and blank lines; a row with nothing to store is skipped with the reason", () => {
    const out = parseImport(
      "name,url,username,password\n\nOnly name\n\nB,https://b.example,u,p\n",
      "generic",
    );
    expect(out.credentials.map((c) => [c.name, c.password])).toEqual([["B", "p"]]);
    expect(out.skipped).toEqual([
      {
        name: "Only name",
        reason: "nothing to store: no username, password, notes, TOTP or fields",
      },
    ]);
  });
});
