/**
 * `vault export` and `vault import` end to end (docs/cli.md, "Export, import and attachments"): the real
 * command against a real worker, one server pair for the file. One person exports a login, a note
 * and a card; a second account imports the file and the server then holds, sealed under the second
 * account's keys, every field the first account's entries held. The refusals change nothing: an
 * existing file is not overwritten, and a file that cannot be read sends nothing to the server.
 */
import { randomUUID } from "node:crypto";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildUploadBody,
  deriveVaultKeys,
  openEntry,
  PBKDF2_ITERATIONS,
  placeOf,
} from "../../core/crypto";
import { protectExport, vaultFileBody } from "../../core/importers";
import type { EntryInput } from "../../core/vault";
import { sealInput } from "../../core/vault";
import { person, signIn, startServers, type Person, type Servers } from "./servers";
import { VAULT_BIN, vault } from "./support";

const PASSPHRASE = "export side passphrase";
const OTHER_PASSPHRASE = "import side passphrase";

let at: Servers;
let alice: Person;
let bob: Person;

const base = { notes: "", category: "", totp: "", tags: [], url: "", website: "" };
const ENTRIES: EntryInput[] = [
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

/** What the server holds for a person, opened with keys derived here from their passphrase. */
async function held(p: Person, passphrase: string) {
  const keys = await deriveVaultKeys(passphrase, p.sub, PBKDF2_ITERATIONS, 1);
  const res = await p.call("GET", "/api/passwords?limit=100");
  expect(res.status).toBe(200);
  const rows = res.body.data as any[];
  return Promise.all(
    rows.map(async (row) => ({
      row,
      secrets: (await openEntry(keys, placeOf(p.sub, row), row)).secrets as Record<string, unknown>,
    })),
  );
}

beforeAll(async () => {
  at = await startServers("cli-io");
  alice = await person(at, "exp");
  bob = await person(at, "imp");
}, 600_000);

afterAll(async () => {
  for (const p of [alice, bob]) {
    if (!p) continue;
    await vault(p.env, ["lock"]);
    p.cleanup();
  }
  await at?.stop();
});

describe("vault export and vault import", () => {
  it("exports the decrypted vault to a new 0600 file, and never over an existing one without --force", async () => {
    await signIn(at, alice);
    const keys = await deriveVaultKeys(PASSPHRASE, alice.sub, PBKDF2_ITERATIONS, 1);
    const now = new Date().toISOString();
    const mutations = [];
    for (const e of ENTRIES) {
      const id = randomUUID();
      const { data } = await sealInput(keys, alice.sub, id, e);
      mutations.push({ action: "create", id, data, clientUpdatedAt: now });
    }
    expect((await alice.call("POST", "/api/passwords/sync", { mutations })).status).toBe(200);
    const open = await vault(alice.env, ["unlock", "--passphrase-fd", "3"], { fd3: PASSPHRASE });
    expect([open.code, open.stdout]).toEqual([0, "Unlocked: 3 entries\n"]);

    const file = join(alice.env.VAULT_CLI_HOME!, "vault.json");
    const made = await vault(alice.env, ["export", "--output", file, "--json"]);
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout)).toEqual({ format: "json", file, entries: 3, unreadable: 0 });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const body = JSON.parse(readFileSync(file, "utf8"));
    expect(body).toMatchObject({ format: "credential-vault-export", version: 2 });
    expect(body.items.map((i: { name: string }) => i.name).sort()).toEqual(
      ENTRIES.map((e) => e.name).sort(),
    );

    // An existing file is kept as it was, byte for byte; --force replaces it, still 0600.
    writeFileSync(join(alice.env.VAULT_CLI_HOME!, "keep.csv"), "mine\n", { mode: 0o644 });
    const kept = join(alice.env.VAULT_CLI_HOME!, "keep.csv");
    const refused = await vault(alice.env, ["export", "--format", "csv", "--output", kept]);
    expect([refused.code, refused.stderr]).toEqual([1, expect.stringContaining("not overwritten")]);
    expect(readFileSync(kept, "utf8")).toBe("mine\n");
    const forced = await vault(alice.env, ["export", "--format", "csv", "-o", kept, "--force"]);
    expect([forced.code, forced.stdout]).toEqual([0, `Exported 3 entries to ${kept}\n`]);
    expect(statSync(kept).mode & 0o777).toBe(0o600);
    const csv = readFileSync(kept, "utf8");
    expect(csv.split("\r\n")[0]).toBe(
      "name,url,username,password,notes,totp,tags,folder,favorite,kind,other_urls,fields",
    );
    expect(csv).toContain('"P4ss,with ""quotes""\nand a line"');
    expect(csv).toContain("card.number: 4111111111111111");

    // To standard output (a pipe here: no question asked), the same body.
    const piped = await vault(alice.env, ["export"]);
    expect(piped.code).toBe(0);
    expect(JSON.parse(piped.stdout).items).toHaveLength(3);
    expect((await vault(alice.env, ["export", "--format", "xml"])).code).toBe(2);
  });

  it("refuses a malformed file before sending anything: the server holds what it held", async () => {
    await signIn(at, bob);
    const open = await vault(bob.env, ["unlock", "--passphrase-fd", "3"], {
      fd3: OTHER_PASSPHRASE,
    });
    expect(open.code, open.stderr).toBe(0);
    const before = (await bob.call("GET", "/api/passwords?limit=100")).body.pagination.total;
    expect(before).toBe(0);
    const dir = bob.env.VAULT_CLI_HOME!;
    const cut = readFileSync(join(alice.env.VAULT_CLI_HOME!, "vault.json"), "utf8").slice(0, 400);
    writeFileSync(join(dir, "cut.json"), cut);
    writeFileSync(join(dir, "odd.csv"), "colour,shape\nred,round\n");
    for (const [name, args] of [
      ["cut.json", []],
      ["odd.csv", []],
      ["odd.csv", ["--format", "source_mgr_1"]],
    ] as const) {
      const r = await vault(bob.env, ["import", join(dir, name), ...args, "--json"]);
      expect(r.code, `${name}: ${r.stderr}`).not.toBe(0);
      expect(r.stderr).toMatch(new RegExp(`${name} cannot be read`));
      expect(JSON.parse(r.stdout)).toMatchObject({ error: expect.stringContaining(name) });
    }
    expect((await vault(bob.env, ["import", join(dir, "none.json")])).code).toBe(2);
    expect((await bob.call("GET", "/api/passwords?limit=100")).body.pagination.total).toBe(before);
  });

  it("imports the export into a second account: every field of the login, note and card comes back", async () => {
    const file = join(alice.env.VAULT_CLI_HOME!, "vault.json");
    const r = await vault(bob.env, ["import", file, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ imported: 3, skipped: [], errors: [] });
    expect((await vault(bob.env, ["list", "--json"])).stdout).toContain("Travel card");

    const mine = await held(alice, PASSPHRASE);
    const theirs = await held(bob, OTHER_PASSPHRASE);
    expect(theirs).toHaveLength(3);
    for (const a of mine) {
      const b = theirs.find((t) => t.row.name === a.row.name)!;
      expect(b, a.row.name).toBeDefined();
      expect(b.row.id).not.toBe(a.row.id);
      for (const k of ["name", "website", "url", "tags", "encryption_version"])
        expect(b.row[k], `${a.row.name}: ${k}`).toEqual(a.row[k]);
      expect(b.secrets, a.row.name).toEqual(a.secrets);
    }

    // The web app's own file, encrypted with a file password: read with the password from a descriptor.
    const note = JSON.parse(readFileSync(file, "utf8")).items.find(
      (i: { name: string }) => i.name === "Recovery codes",
    );
    const sealed = await protectExport(
      JSON.stringify({ ...vaultFileBody([note]), items: [{ ...note, name: "Codes again" }] }),
      "file password 1234",
      10_000,
      "vault",
    );
    const locked = join(bob.env.VAULT_CLI_HOME!, "web-export.json");
    writeFileSync(
      locked,
      JSON.stringify({ format: "credential-vault-export", version: 2, ...sealed }),
    );
    const asked = await vault(bob.env, ["import", locked]);
    expect([asked.code, asked.stderr]).toEqual([2, expect.stringContaining("--password-fd")]);
    const opened = await vault(bob.env, ["import", locked, "--password-fd", "3"], {
      fd3: "file password 1234\n",
    });
    expect([opened.code, opened.stdout], opened.stderr).toEqual([
      0,
      expect.stringMatching(/^Imported 1 entry from /),
    ]);
    expect((await vault(bob.env, ["get", "Codes again", "-f", "notes"])).stdout).toBe(
      note.secrets.notes,
    );

    // Another manager's CSV, with one row that cannot be imported: named, with the reason.
    const csv = join(bob.env.VAULT_CLI_HOME!, "other.csv");
    writeFileSync(
      csv,
      "name,url,username,password\nForum,https://forum.example,bob,f0rum\nEmpty,https://empty.example,,\n",
    );
    const other = await vault(bob.env, ["import", csv]);
    expect(other.code, other.stderr).toBe(0);
    expect(other.stdout).toMatch(/^Imported 1 entry from .*other\.csv/);
    expect(other.stdout).toContain(
      "Skipped Empty: nothing to store: no username, password, notes, TOTP or fields",
    );
    expect((await vault(bob.env, ["get", "Forum"])).stdout).toBe("f0rum");

    // A LastPass file's typed notes: a card, and a bank account kept as a note, counted by kind.
    const lastpass = join(bob.env.VAULT_CLI_HOME!, "lastpass.csv");
    writeFileSync(
      lastpass,
      'url,username,password,totp,extra,name,grouping,fav\nhttp://sn,,,,"NoteType:Credit Card\nName on Card:Bob B\nNumber:4111111111111111\nExpiration Date:May,2029\nNotes:",Bob Visa,,0\nhttp://sn,,,,"NoteType:Bank Account\nBank Name:Quay Bank\nAccount Number:5566\nNotes:Joint",Quay savings,,0\n',
    );
    const typed = await vault(bob.env, ["import", lastpass]);
    expect(typed.code, typed.stderr).toBe(0);
    expect(typed.stdout.split("\n").slice(0, 2)).toEqual([
      expect.stringMatching(/^Imported 2 entries from .*lastpass\.csv \(LastPass \(CSV\)\)$/),
      "By kind: 1 card, 1 secure note; kept as the nearest kind: 1 bank account (as a secure note)",
    ]);
    expect((await vault(bob.env, ["get", "Quay savings", "-f", "notes"])).stdout).toBe("Joint");
  });

  it("writes an attachment, decrypted, to a new 0600 file: the bytes that were uploaded", async () => {
    const keys = await deriveVaultKeys(PASSPHRASE, alice.sub, PBKDF2_ITERATIONS, 1);
    const bank = (await held(alice, PASSPHRASE)).find((h) => h.row.name === "Bank login")!;
    // Every byte value, and more than one AES block's worth of random bytes after them.
    const bytes = new Uint8Array(70_000);
    crypto.getRandomValues(bytes.subarray(256, 65_792));
    for (let i = 0; i < 256; i++) bytes[i] = i;
    for (const [filename, content] of [
      ["statement.pdf", bytes],
      ["other.txt", new TextEncoder().encode("not this one")],
    ] as const) {
      const body = await buildUploadBody(
        keys.vaultKey,
        { id: bank.row.id, type: "password" },
        { content, filename, mimeType: "application/octet-stream" },
      );
      const up = await alice.call("POST", "/api/vault/attachments", body);
      expect(up.status, JSON.stringify(up.body)).toBe(201);
    }
    // The server holds the file sealed: not the bytes in the clear.
    const listed = await alice.call("GET", `/api/vault/attachments?parent_id=${bank.row.id}`);
    expect(JSON.stringify(listed.body)).not.toContain("statement.pdf");

    const file = join(alice.env.VAULT_CLI_HOME!, "statement.pdf");
    const args = ["get", "Bank login", "--attachment", "statement.pdf", "--output", file];
    const got = await vault(alice.env, [...args, "--json"]);
    expect(got.code, got.stderr).toBe(0);
    expect(JSON.parse(got.stdout)).toEqual({ file, attachment: "statement.pdf", bytes: 70_000 });
    expect(new Uint8Array(readFileSync(file))).toEqual(bytes);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    writeFileSync(file, "kept");
    const again = await vault(alice.env, args);
    expect([again.code, again.stderr]).toEqual([1, expect.stringContaining("not overwritten")]);
    expect(readFileSync(file, "utf8")).toBe("kept");
    expect((await vault(alice.env, [...args, "--force"])).code).toBe(0);
    expect(new Uint8Array(readFileSync(file))).toEqual(bytes);

    const none = await vault(alice.env, [
      "get",
      "Bank login",
      "--attachment",
      "nothing.pdf",
      "-o",
      join(alice.env.VAULT_CLI_HOME!, "nothing.pdf"),
    ]);
    expect([none.code, none.stderr]).toEqual([
      6,
      expect.stringContaining('no attachment named "nothing.pdf"'),
    ]);
    expect(
      (await vault(alice.env, ["get", "Bank login", "--attachment", "statement.pdf"])).code,
    ).toBe(2);
  });

  it("asks on a terminal before writing the vault in plain text; no writes nothing, --yes asks nothing", async () => {
    const file = join(alice.env.VAULT_CLI_HOME!, "asked.json");
    // `script` gives the command a terminal (a pseudo-terminal) for its input and output.
    const onTerminal = (answer: string | null, extra: string[] = []) =>
      new Promise<{ code: number | null; out: string }>((resolve) => {
        const cmd = [process.execPath, VAULT_BIN, "export", "-o", file, ...extra]
          .map((a) => `'${a}'`)
          .join(" ");
        const child = spawn("script", ["-qec", cmd, "/dev/null"], {
          env: { PATH: process.env.PATH ?? "", HOME: alice.env.VAULT_CLI_HOME!, ...alice.env },
        });
        let out = "";
        let sent = false;
        child.stdout.on("data", (d) => {
          out += d;
          // Answered once the question is on the screen, as a person would.
          if (answer !== null && !sent && out.includes("[y/N]")) {
            sent = true;
            child.stdin.write(answer);
          }
        });
        child.on("close", (code) => resolve({ code, out }));
      });
    const no = await onTerminal("n\r");
    expect(no.out).toContain("Every password of the vault, in plain text");
    expect([no.code, no.out]).toEqual([1, expect.stringContaining("Not exported")]);
    expect(existsSync(file)).toBe(false);
    const yes = await onTerminal("y\r");
    expect(yes.code, yes.out).toBe(0);
    expect(JSON.parse(readFileSync(file, "utf8")).items).toHaveLength(3);
    rmSync(file);
    const unasked = await onTerminal(null, ["--yes"]);
    expect([unasked.code, unasked.out], unasked.out).toEqual([
      0,
      expect.not.stringContaining("[y/N]"),
    ]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});
