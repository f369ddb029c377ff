/**
 * The entries io.test.ts plants (a login with every part, a note, a card) and the pattern of their
 * names, addresses, tags, usernames, notes and secrets that an encrypted export must not show.
 */
import type { EntryInput } from "../../core/vault";

const base = { notes: "", category: "", totp: "", tags: [], url: "", website: "" };
export const ENTRIES: EntryInput[] = [
  {
    ...base,
    name: "Bank login",
    url: "https://bank.example/login",
    website: "bank.example",
    tags: ["money", "daily"],
    username: "alice@bank",
    password: 'P4ss,with "quotes"\nand a line',
    notes: "login notes",
    totp: "otpauth://totp/Bank?secret=JBSWY3DPEHPK3PXP",
    folder: "Finance",
    favorite: true,
    urls: [{ url: "https://m.bank.example", match: "host" }],
    fields: [
      { name: "PIN", value: "8642", type: "hidden" },
      { name: "branch", value: "North", type: "text" },
    ],
    password_history: [{ password: "old-bank-pw", changed_at: "2026-01-02T03:04:05.000Z" }],
  },
  {
    ...base,
    name: "Recovery codes",
    username: "",
    password: "",
    kind: "note",
    notes: "1111-2222\n3333-4444\nunicode: ünïcødé ✓",
  },
  {
    ...base,
    name: "Travel card",
    username: "",
    password: "",
    kind: "card",
    notes: "for abroad",
    card: {
      cardholder: "Alice Example",
      brand: "Visa",
      number: "4111111111111111",
      exp_month: "09",
      exp_year: "2031",
      code: "123",
    },
  },
];

/** Every name, address, tag, username, note and secret planted above: none may be in the sealed file. */
export const CANARIES =
  /Bank login|bank\.example|money|daily|alice@bank|P4ss|login notes|JBSWY3DP|Finance|PIN|8642|North|old-bank-pw|Recovery codes|1111-2222|Travel card|Alice Example|4111111111111111|for abroad/;
