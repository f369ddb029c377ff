import { strToU8, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { kindSummary } from "../../core/importers/kinds";
import {
  detectFormat,
  parseImport,
  readImportFile,
  secretPayload,
  type ImportedCredential,
} from "../../core/importers/read";
import dlCredentials from "../fixtures/imports/dashlane/credentials.csv?raw";
import dlIds from "../fixtures/imports/dashlane/ids.csv?raw";
import dlPayments from "../fixtures/imports/dashlane/payments.csv?raw";
import dlPersonal from "../fixtures/imports/dashlane/personalInfo.csv?raw";
import dlNotes from "../fixtures/imports/dashlane/securenotes.csv?raw";
import lastpassNotes from "../fixtures/imports/lastpass-notes.csv?raw";
import nordpassOld from "../fixtures/imports/nordpass-old.csv?raw";
import onePasswordMac from "../fixtures/imports/1password7-mac-all.csv?raw";
import onePasswordWinCards from "../fixtures/imports/1password7-win-cards.csv?raw";
import onePasswordWinIds from "../fixtures/imports/1password7-win-identities.csv?raw";

const byName = (list: ImportedCredential[], name: string) => {
  const c = list.find((x) => x.name === name);
  if (!c) throw new Error(`no item named ${name} among ${list.map((x) => x.name).join(", ")}`);
  return c;
};
const text = (name: string, value: string) => ({ name, value, type: "text" });
const hidden = (name: string, value: string) => ({ name, value, type: "hidden" });

describe("LastPass typed secure notes", () => {
  const out = parseImport(lastpassNotes);
  const get = (name: string) => byName(out.credentials, name);

  it("every row arrives, counted by kind and by what LastPass called it", () => {
    expect(out.format).toBe("source_mgr_2");
    expect(out.skipped).toEqual([]);
    expect(out.credentials).toHaveLength(7);
    expect(kindSummary(out.credentials)).toBe(
      "1 card, 3 secure notes, 2 identities, 1 login; kept as the nearest kind: 1 bank account (as a secure note), 1 address (as an identity), 1 passport (as an identity), 1 Wi-Fi network (as a login), 1 insurance (as a secure note)",
    );
  });

  it("a Credit Card note is a card: holder, brand, number, code, expiry; its notes and start date kept", () => {
    expect(get("Travel Visa")).toMatchObject({
      kind: "card",
      card: {
        cardholder: "Iris Novak",
        brand: "Visa",
        number: "4111 1111 1111 1111",
        code: "321",
        exp_month: "06",
        exp_year: "2028",
      },
      notes: "Travel card\nCall the bank before trips",
      fields: [text("Start Date", "January,2024")],
      folder: "Finance",
      favorite: true,
      changes: [],
    });
  });

  it("a Bank Account note is a secure note with every detail a named field, secrets hidden", () => {
    const bank = get("Household account");
    expect(bank).toMatchObject({
      kind: "note",
      sourceKind: "bank account",
      notes: "Joint account",
      changes: [
        "a bank account in the source: kept as a secure note, its details as 8 named fields",
      ],
    });
    expect(bank.fields).toEqual([
      text("Bank Name", "North Shore Savings"),
      text("Account Type", "Checking"),
      text("Routing Number", "021000021"),
      hidden("Account Number", "000123456789"),
      text("SWIFT Code", "NSSBUS33"),
      hidden("Pin", "4455"),
      text("Branch Address", "1 Harbour Road"),
      text("Branch Phone", "555-0100"),
    ]);
    // What is sealed carries the fields: nothing is lost between the preview and the vault.
    expect(secretPayload(bank).fields).toEqual(bank.fields);
  });

  it("an Address is an identity; a Passport fills the identity's passport slot", () => {
    expect(get("Home address")).toMatchObject({
      kind: "identity",
      identity: {
        title: "Dr",
        first_name: "Iris",
        middle_name: "J",
        last_name: "Novak",
        username: "inovak",
        company: "Lighthouse Ltd",
        address1: "12 Quay Street",
        address2: "Flat 4",
        city: "Portmere",
        state: "Westshire",
        postal_code: "PM1 2QS",
        country: "GB",
        email: "iris@example.test",
        phone: "5550111 (GBR)",
      },
      fields: [text("Gender", "Female"), text("Birthday", "March,3,1985")],
    });
    const passport = get("Passport");
    expect(passport).toMatchObject({
      kind: "identity",
      identity: { first_name: "Iris Jane", last_name: "Novak", passport: "925076473" },
    });
    expect(passport.fields.map((f) => f.name)).toEqual([
      "Type",
      "Country",
      "Sex",
      "Nationality",
      "Issuing Authority",
      "Date of Birth",
      "Issued Date",
      "Expiration Date",
    ]);
  });

  it("a Wi-Fi note is a login holding the network's password; an unknown type and a plain note stay notes", () => {
    expect(get("Home Wi-Fi")).toMatchObject({
      kind: "login",
      sourceKind: "Wi-Fi network",
      password: "salty-breeze-42",
      fields: [text("SSID", "Harbour-5G"), text("Connection Type", "WPA2")],
      notes: "Router in the hall",
    });
    expect(get("Home insurance")).toMatchObject({
      kind: "note",
      fields: [
        text("Company", "Anchor Mutual"),
        text("Policy Type", "Home"),
        text("Policy Number", "AM-7781"),
        text("Expiration", "December,31,2027"),
        text("Agent Name", "Tom Reed"),
      ],
    });
    expect(get("Gate")).toMatchObject({
      kind: "note",
      notes: "Gate code 1942\nSpare key with the neighbour",
      fields: [],
      changes: [],
    });
  });
});

describe("1Password 7 all-fields CSV", () => {
  it("the Mac file: each item by its Type, the kinds the vault lacks kept as the nearest with their fields", () => {
    expect(detectFormat(onePasswordMac)).toBe("source_mgr_3");
    const out = parseImport(onePasswordMac);
    expect(out.skipped).toEqual([]);
    const get = (name: string) => byName(out.credentials, name);
    expect(get("Code host")).toMatchObject({
      kind: "login",
      username: "lena",
      password: "c0de-h0st",
      url: "https://code.example.com",
      urls: [{ url: "https://ci.example.com", match: "domain" }],
      notes: "2FA on the phone",
      tags: ["work"],
      fields: [text("1Password Created Date", "2023-11-14T22:13:20Z")],
    });
    expect(get("Shopping card")).toMatchObject({
      kind: "card",
      card: {
        cardholder: "Lena Ortiz",
        brand: "Mastercard",
        number: "5555555555554444",
        code: "737",
        exp_month: "03",
        exp_year: "2029",
      },
    });
    expect(get("Lena")).toMatchObject({
      kind: "identity",
      identity: {
        first_name: "Lena",
        middle_name: "M",
        last_name: "Ortiz",
        email: "lena@example.test",
        phone: "555-0199",
        company: "Ortiz & Co",
      },
    });
    expect(get("Alarm code")).toMatchObject({ kind: "note", notes: "Front door: 2468#" });
    expect(get("Everyday bank")).toMatchObject({
      kind: "note",
      sourceKind: "bank account",
      fields: [
        text("Bank Name", "Harbour Bank"),
        hidden("Account Number", "11223344"),
        text("Routing Number", "400100"),
      ],
    });
    expect(get("Office Wi-Fi")).toMatchObject({
      kind: "login",
      sourceKind: "Wi-Fi network",
      password: "w1f1-pass",
      fields: [text("Network Name", "Office-Net")],
    });
    expect(get("Build server")).toMatchObject({
      kind: "login",
      sourceKind: "server",
      username: "deploy",
      password: "deploy-pass",
      fields: [text("Server", "build.example.internal")],
    });
  });

  it("the Windows files (one per kind, no item type): a card with its brand in `type`; an identity", () => {
    expect(detectFormat(onePasswordWinCards)).toBe("source_mgr_3");
    expect(parseImport(onePasswordWinCards).credentials).toEqual([
      expect.objectContaining({
        name: "Omar's Visa",
        kind: "card",
        notes: "Backup card",
        card: {
          cardholder: "Omar Haddad",
          brand: "Visa",
          number: "4111111111111111",
          code: "456",
          exp_month: "09",
          exp_year: "2027",
        },
        fields: [text("valid from", "202301")],
      }),
    ]);
    expect(detectFormat(onePasswordWinIds)).toBe("source_mgr_3");
    expect(parseImport(onePasswordWinIds).credentials).toEqual([
      expect.objectContaining({
        name: "Omar (work)",
        kind: "identity",
        notes: "Main profile",
        identity: {
          first_name: "Omar",
          middle_name: "K",
          last_name: "Haddad",
          username: "ohaddad",
          company: "Haddad Studio",
          email: "omar@example.test",
          phone: "555-0142",
          address1: "9 Elm Row, Brookfield",
        },
        fields: [],
      }),
    ]);
  });
});

describe("Dashlane's CSV files and their zip", () => {
  const zip = (files: Record<string, string>) =>
    zipSync(Object.fromEntries(Object.entries(files).map(([n, t]) => [n, strToU8(t)])));
  const all = {
    "credentials.csv": dlCredentials,
    "securenotes.csv": dlNotes,
    "payments.csv": dlPayments,
    "ids.csv": dlIds,
    "personalInfo.csv": dlPersonal,
  };

  it("the zip: every file read, every row arrives as the nearest kind", async () => {
    const out = await readImportFile(zip(all));
    expect(out.format).toBe("source_mgr_4");
    expect(out.skipped).toEqual([]);
    expect(out.credentials.map((c) => c.name)).toEqual([
      "Webmail",
      "Bike lock",
      "Noor Aziz",
      "Savings",
      "Noor Aziz — passport",
      "Noor Aziz — driver's licence",
      "Noor Aziz — social security number",
      "Ms Noor Aziz",
      "Personal mail",
      "Home",
      "Blog",
    ]);
    const get = (name: string) => byName(out.credentials, name);
    expect(get("Webmail")).toMatchObject({ username: "noor@example.test", folder: "Email" });
    expect(get("Bike lock")).toMatchObject({ kind: "note", notes: "Code 5-1-9" });
    expect(get("Noor Aziz")).toMatchObject({
      kind: "card",
      card: {
        cardholder: "Noor Aziz",
        brand: "American Express",
        number: "378282246310005",
        code: "4321",
        exp_month: "07",
        exp_year: "2027",
      },
      fields: [text("Country", "US")],
    });
    expect(get("Savings")).toMatchObject({
      kind: "note",
      sourceKind: "bank account",
      fields: [
        text("Account holder", "Noor Aziz"),
        text("Routing number", "026009593"),
        hidden("Account number", "9876543210"),
        text("Country", "US"),
        text("Issuing bank", "Coastal Credit Union"),
      ],
    });
    expect(get("Noor Aziz — passport")).toMatchObject({
      kind: "identity",
      identity: { first_name: "Noor", last_name: "Aziz", passport: "X99887766" },
      fields: [
        text("Issue date", "2021-4-9"),
        text("Expiry date", "2031-4-8"),
        text("Place of issue", "US"),
      ],
    });
    expect(get("Noor Aziz — driver's licence").identity).toMatchObject({ license: "D1234-5678" });
    expect(get("Noor Aziz — social security number").identity).toMatchObject({
      ssn: "123-45-6789",
    });
    expect(get("Ms Noor Aziz")).toMatchObject({
      kind: "identity",
      identity: { title: "Ms", first_name: "Noor", last_name: "Aziz", username: "noora" },
      fields: [
        text("Date of birth", "1990-6-15"),
        text("Place of birth", "Denver"),
        text("Job title", "Engineer"),
      ],
    });
    expect(get("Home")).toMatchObject({
      identity: {
        address1: "42 Pine Street",
        city: "Denver",
        state: "CO",
        postal_code: "80203",
        country: "US",
      },
      fields: [text("Address recipient", "Noor Aziz"), text("Address apartment", "3B")],
    });
    expect(get("Blog")).toMatchObject({
      kind: "note",
      fields: [text("Url", "https://noor.example.com")],
    });
  });

  it("each file alone is detected and read; a file in the zip that is none of Dashlane's is named, not dropped", async () => {
    for (const t of [dlPayments, dlIds, dlPersonal]) expect(detectFormat(t)).toBe("source_mgr_4");
    expect(parseImport(dlIds).credentials).toHaveLength(3);
    const out = await readImportFile(
      zip({ "credentials.csv": dlCredentials, "extra.csv": "colour,shape\nred,round\n" }),
    );
    expect(out.credentials.map((c) => c.name)).toEqual(["Webmail"]);
    expect(out.skipped).toEqual([
      {
        name: "extra.csv",
        reason:
          "not read: Not a Dashlane credentials export: missing column(s) username, title, password, url",
      },
    ]);
  });
});

describe("NordPass CSV without a type column (older exports)", () => {
  it("is NordPass, not a browser file: each row's kind judged by what it holds, folders kept", () => {
    expect(detectFormat(nordpassOld)).toBe("nordpass");
    const out = parseImport(nordpassOld);
    expect(out.skipped).toEqual([]);
    expect(out.credentials.map((c) => [c.name, c.kind, c.folder])).toEqual([
      ["Forum", "login", "Hobbies"],
      ["Pia's Mastercard", "card", "Finance"],
      ["Pia Lind", "identity", null],
      ["Wi-Fi at the cabin", "note", null],
    ]);
    expect(out.credentials[1]).toMatchObject({
      card: {
        cardholder: "Pia Lind",
        brand: "Mastercard",
        number: "5105105105105100",
        code: "901",
        exp_month: "11",
        exp_year: "28",
      },
      notes: "Groceries",
      // The card's billing postcode has no slot on a card: a field, not lost.
      fields: [text("Zipcode", "11422")],
    });
    expect(out.credentials[2]!.identity).toEqual({
      first_name: "Pia",
      last_name: "Lind",
      email: "pia@example.test",
      phone: "555-0175",
      address1: "Storgatan 5",
      city: "Lund",
      country: "SE",
      postal_code: "11422",
    });
  });
});
