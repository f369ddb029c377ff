import { describe, expect, it } from "vitest";
import {
  deriveVaultKeys,
  parseSecrets,
  serializeSecrets,
  type EntrySecrets,
} from "../../core/crypto/crypto";
import { openEntry, sealEntry, type Place } from "../../core/crypto/envelope";
import { carried, type EntryInput } from "../../core/vault/vault";

const PLACE: Place = { entryId: "entry-1", userId: "user-1", host: "example.com", scheme: "https" };
const base = { username: "u", password: "p", notes: "", category: "", totp: "" };

describe("entry payload: kinds, addresses, fields, and keys this client does not know", () => {
  it("reads kind, urls (with match rules), typed fields, card and identity; drops malformed parts, not the entry", () => {
    const s = parseSecrets(
      JSON.stringify({
        ...base,
        kind: "card",
        urls: [
          { url: " https://b.example ", match: "exact" },
          { url: "https://c.example", match: "bogus" },
          { nope: 1 },
          "x",
        ],
        fields: [
          { name: "PIN", value: "1234", type: "hidden" },
          { name: "Opt-in", value: true, type: "boolean" },
          { value: "no name" },
        ],
        card: { number: "4111", code: 5, cardholder: "A" },
        identity: { first_name: "Ann", evil: "x" },
      }),
    );
    expect(s.kind).toBe("card");
    expect(s.urls).toEqual([
      { url: "https://b.example", match: "exact" },
      { url: "https://c.example", match: "domain" },
    ]);
    expect(s.fields).toEqual([
      { name: "PIN", value: "1234", type: "hidden" },
      { name: "Opt-in", value: "true", type: "boolean" },
    ]);
    expect(s.card).toEqual({ number: "4111", cardholder: "A" });
    expect(s.identity).toEqual({ first_name: "Ann" });
    expect(s.extra).toBeUndefined();
  });

  it("keeps unknown keys through a parse, a re-seal and an edit by a form that does not show them", async () => {
    const keys = await deriveVaultKeys("correct horse battery", "user-1", 1_000);
    const newer = {
      ...base,
      future_list: [{ id: "abc", site: "example.com" }],
      future_flag: 7,
      fields: [{ name: "F", value: "v", type: "text" }],
    };
    const read = parseSecrets(JSON.stringify(newer));
    expect(read.extra).toEqual({ future_list: newer.future_list, future_flag: 7 });
    expect(JSON.parse(serializeSecrets(read))).toEqual(newer);
    const opened = (await openEntry(keys, PLACE, await sealEntry(keys, PLACE, read))).secrets;
    expect(opened).toEqual(read);

    // The edit form sends only what it shows: the entry's other parts stay as they were.
    const form: EntryInput = { ...base, password: "p2", name: "n", website: "", url: "", tags: [] };
    const edited = carried(opened, form);
    expect(edited).toMatchObject({ password: "p2", extra: read.extra, fields: newer.fields });
    expect(JSON.parse(serializeSecrets(edited as EntrySecrets))).toMatchObject({
      future_list: newer.future_list,
      future_flag: 7,
      password: "p2",
    });
    // A form that does set a part (to nothing) is obeyed.
    expect(carried(opened, { ...form, fields: undefined }).fields).toBeUndefined();
  });

  it("a known key never hides under an unknown one of the same name", () => {
    const s = parseSecrets(JSON.stringify({ ...base, password: "real" }));
    expect(serializeSecrets({ ...s, extra: { password: "shadow" } })).toContain(
      '"password":"real"',
    );
  });
});
