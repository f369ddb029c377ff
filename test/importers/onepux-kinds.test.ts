import { strToU8, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { kindSummary } from "../../core/importers/kinds";
import { readImportFile, type ImportedCredential } from "../../core/importers/read";
import onePuxKinds from "../fixtures/imports/onepux-kinds.data?raw";

const text = (name: string, value: string) => ({ name, value, type: "text" });
const hidden = (name: string, value: string) => ({ name, value, type: "hidden" });

describe("1Password 1PUX: the categories beyond logins, cards, notes and identities", () => {
  const read = () =>
    readImportFile(zipSync({ "export.data": strToU8(onePuxKinds) })).then((out) => {
      const get = (name: string): ImportedCredential => {
        const c = out.credentials.find((x) => x.name === name);
        if (!c) throw new Error(`no ${name}`);
        return c;
      };
      return { out, get };
    });

  it("every item arrives: none skipped, counted by kind and by 1Password's category", async () => {
    const { out } = await read();
    expect(out.skipped).toEqual([]);
    expect(out.credentials).toHaveLength(9);
    expect(kindSummary(out.credentials)).toBe(
      "4 logins, 2 secure notes, 3 identities; kept as the nearest kind: 1 bank account (as a secure note), 1 Wi-Fi network (as a login), 1 server (as a login), 1 passport (as an identity), 1 social security number (as an identity), 1 API credential (as a login), 1 medical record (as a secure note)",
    );
  });

  it("a bank account is a secure note: every detail a field, the account number and PIN hidden", async () => {
    const { get } = await read();
    expect(get("Harbour Bank")).toMatchObject({
      kind: "note",
      notes: "Salary account",
      folder: "Home",
      fields: [
        text("bank name", "Harbour Bank"),
        text("name on account", "Kim Park"),
        text("type", "checking"),
        text("routing number", "011000015"),
        hidden("account number", "55501234"),
        text("SWIFT", "HRBBUS44"),
        hidden("PIN", "8080"),
      ],
      changes: [
        "a bank account in the source: kept as a secure note, its details as 7 named fields",
      ],
    });
  });

  it("a router, a server and an API credential are logins: the network's password, the server's account, the key", async () => {
    const { get } = await read();
    expect(get("Home router")).toMatchObject({
      kind: "login",
      password: "wifi-4422",
      fields: [
        text("base station name", "Kim's router"),
        hidden("base station password", "admin-9911"),
        text("network name", "ParkNet"),
        text("wireless security", "wpa2p"),
      ],
    });
    expect(get("Staging box")).toMatchObject({
      kind: "login",
      username: "ops",
      password: "st4ging!",
      fields: [text("URL", "ssh://staging.example.internal")],
    });
    expect(get("Billing API")).toMatchObject({
      kind: "login",
      username: "billing-bot",
      password: "sk_live_abc123",
      fields: [text("hostname", "api.billing.example.com")],
    });
  });

  it("a passport and an SSN fill an identity's slots; an identity keeps its whole address; dates are days", async () => {
    const { get } = await read();
    expect(get("Kim's passport")).toMatchObject({
      kind: "identity",
      identity: { first_name: "Kim Min", last_name: "Park", passport: "M12345678" },
      fields: [
        text("type", "P"),
        text("issuing country", "KR"),
        text("date of birth", "1990-01-01"),
        text("expiry date", "2030-01-01"),
      ],
    });
    expect(get("Kim's SSN").identity).toEqual({
      first_name: "Kim",
      last_name: "Park",
      ssn: "078-05-1120",
    });
    expect(get("Kim")).toMatchObject({
      kind: "identity",
      identity: {
        first_name: "Kim",
        middle_name: "M",
        last_name: "Park",
        address1: "7 Cedar Lane",
        city: "Springfield",
        state: "OR",
        postal_code: "97477",
        country: "us",
        phone: "555-0123",
        email: "kim@example.test",
      },
      fields: [text("birth date", "1990-01-01")],
      changes: [],
    });
  });

  it("a login's unticked checkbox is kept as false; a medical record is a note with its fields", async () => {
    const { get } = await read();
    expect(get("Newsletter")).toMatchObject({
      username: "kim",
      password: "n3ws",
      website: "news.example.org",
      fields: [{ name: "keep me signed in", value: "false", type: "boolean" }],
    });
    expect(get("Clinic record")).toMatchObject({
      kind: "note",
      fields: [text("healthcare professional", "Dr Lee"), text("patient", "Kim Park")],
    });
  });
});
