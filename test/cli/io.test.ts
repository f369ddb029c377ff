/**
 * `vault export` and `vault import` end to end (docs/cli.md, "Export, import and attachments"): the real
 * command against a real worker, one server pair for the file. One person exports a login, a note
 * and a card, in a file encrypted with a file password (nothing of an entry readable in it); a
 * second account imports the file and the server then holds, sealed under the second account's
 * keys, every field the first account's entries held; the first account imports it back as copies.
 * The plain file of earlier versions still imports. The refusals change nothing: an existing file
 * is not overwritten, and a file that cannot be read sends nothing to the server.
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
import { sealInput } from "../../core/vault";
import { CANARIES, ENTRIES } from "./io-entries";
import { person, signIn, startServers, type Person, type Servers } from "./servers";
import { VAULT_BIN, vault } from "./support";

const PASSPHRASE = "export side passphrase";
const OTHER_PASSPHRASE = "import side passphrase";
const FILE_PASSWORD = "the file password 42";

let at: Servers;
let alice: Person;
let bob: Person;

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
  it("exports the vault encrypted with a file password by default (no entry readable in it), plain only when asked, to a new 0600 file, never over an existing one without --force", async () => {
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

    // The default: the vault file, encrypted with a file password read from a descriptor.
    const file = join(alice.env.VAULT_CLI_HOME!, "vault.json");
    const made = await vault(alice.env, ["export", "-o", file, "--password-fd", "3", "--json"], {
      fd3: `${FILE_PASSWORD}\n`,
    });
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout)).toEqual({ format: "vault", file, entries: 3, unreadable: 0 });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const sealedText = readFileSync(file, "utf8");
    expect(sealedText).not.toMatch(CANARIES);
    for (const h of await held(alice, PASSPHRASE)) expect(sealedText).not.toContain(h.row.id);
    const sealedDoc = JSON.parse(sealedText);
    expect(Object.keys(sealedDoc).sort()).toEqual(
      [
        "contents",
        "data",
        "encKeyValidation_DO_NOT_EDIT",
        "encrypted",
        "format",
        "kdfIterations",
        "kdfType",
        "passwordProtected",
        "salt",
        "version",
      ].sort(),
    );
    expect(sealedDoc).toMatchObject({
      format: "credential-vault-export",
      version: 2,
      contents: "vault",
      kdfIterations: 600_000,
    });
    // No password from a descriptor and no terminal, or one too short: refused, nothing written.
    const other = join(alice.env.VAULT_CLI_HOME!, "not-written.json");
    const noPassword = await vault(alice.env, ["export", "-o", other]);
    expect([noPassword.code, noPassword.stderr]).toEqual([
      2,
      expect.stringContaining("--password-fd"),
    ]);
    const short = await vault(alice.env, ["export", "-o", other, "--password-fd", "3"], {
      fd3: "short",
    });
    expect([short.code, short.stderr]).toEqual([2, expect.stringContaining("at least 10")]);
    expect(existsSync(other)).toBe(false);

    // For leaving: the plain body, as earlier versions wrote it by default.
    const plain = join(alice.env.VAULT_CLI_HOME!, "vault-plain.json");
    const plainRun = await vault(alice.env, ["export", "--format", "json", "-o", plain, "--json"]);
    expect(plainRun.code, plainRun.stderr).toBe(0);
    expect(JSON.parse(plainRun.stdout)).toMatchObject({ format: "json", entries: 3 });
    expect(statSync(plain).mode & 0o777).toBe(0o600);
    const body = JSON.parse(readFileSync(plain, "utf8"));
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
    const piped = await vault(alice.env, ["export", "--format", "json"]);
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
    const cut = readFileSync(join(alice.env.VAULT_CLI_HOME!, "vault-plain.json"), "utf8").slice(
      0,
      400,
    );
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
    const asked = await vault(bob.env, ["import", file]);
    expect([asked.code, asked.stderr]).toEqual([2, expect.stringContaining("--password-fd")]);
    const wrong = await vault(bob.env, ["import", file, "--password-fd", "3"], {
      fd3: "not the file password",
    });
    expect(wrong.code).toBe(2);
    expect((await bob.call("GET", "/api/passwords?limit=100")).body.pagination.total).toBe(0);
    const r = await vault(bob.env, ["import", file, "--password-fd", "3", "--json"], {
      fd3: FILE_PASSWORD,
    });
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
    const note = JSON.parse(
      readFileSync(join(alice.env.VAULT_CLI_HOME!, "vault-plain.json"), "utf8"),
    ).items.find((i: { name: string }) => i.name === "Recovery codes");
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
    // `script` gives the command a terminal (a pseudo-terminal) for its input and output. Each
    // answer is typed once its cue is on the screen, after the previous one, as a person would.
    const onTerminal = (args: string[], answers: [cue: string, typed: string][] = []) =>
      new Promise<{ code: number | null; out: string }>((resolve) => {
        const cmd = [process.execPath, VAULT_BIN, "export", ...args].map((a) => `'${a}'`).join(" ");
        const child = spawn("script", ["-qec", cmd, "/dev/null"], {
          env: { PATH: process.env.PATH ?? "", HOME: alice.env.VAULT_CLI_HOME!, ...alice.env },
        });
        let out = "";
        let from = 0;
        const left = [...answers];
        child.stdout.on("data", (d) => {
          out += d;
          const next = left[0];
          if (next && out.indexOf(next[0], from) >= 0) {
            from = out.indexOf(next[0], from) + next[0].length;
            left.shift();
            child.stdin.write(next[1]);
          }
        });
        child.on("close", (code) => resolve({ code, out }));
      });
    const plain = ["--format", "json", "-o", file];
    const no = await onTerminal(plain, [["[y/N]", "n\r"]]);
    expect(no.out).toContain("Every password of the vault, in plain text");
    expect([no.code, no.out]).toEqual([1, expect.stringContaining("Not exported")]);
    expect(existsSync(file)).toBe(false);
    const yes = await onTerminal(plain, [["[y/N]", "y\r"]]);
    expect(yes.code, yes.out).toBe(0);
    expect(JSON.parse(readFileSync(file, "utf8")).items).toHaveLength(3);
    rmSync(file);
    const unasked = await onTerminal([...plain, "--yes"]);
    expect([unasked.code, unasked.out], unasked.out).toEqual([
      0,
      expect.not.stringContaining("[y/N]"),
    ]);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    // The encrypted file: its password typed twice, not shown; two that differ write nothing.
    const sealed = join(alice.env.VAULT_CLI_HOME!, "typed.json");
    const differ = await onTerminal(
      ["-o", sealed],
      [
        ["File password: ", `${FILE_PASSWORD}\r`],
        ["File password again: ", "something else 123\r"],
      ],
    );
    expect([differ.code, differ.out]).toEqual([1, expect.stringContaining("differ")]);
    expect(existsSync(sealed)).toBe(false);
    const typed = await onTerminal(
      ["-o", sealed],
      [
        ["File password: ", `${FILE_PASSWORD}\r`],
        ["File password again: ", `${FILE_PASSWORD}\r`],
      ],
    );
    expect(typed.code, typed.out).toBe(0);
    expect(typed.out).not.toContain(FILE_PASSWORD);
    expect(typed.out).not.toContain("[y/N]");
    expect(readFileSync(sealed, "utf8")).not.toMatch(CANARIES);
    expect(JSON.parse(readFileSync(sealed, "utf8"))).toMatchObject({ contents: "vault" });
  });

  it("an account imports its own export back: every entry again under a fresh id, none skipped", async () => {
    const file = join(alice.env.VAULT_CLI_HOME!, "vault.json");
    const before = await held(alice, PASSPHRASE);
    const r = await vault(alice.env, ["import", file, "--password-fd", "3", "--json"], {
      fd3: FILE_PASSWORD,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ imported: 3, skipped: [], errors: [] });
    const after = await held(alice, PASSPHRASE);
    expect(after).toHaveLength(before.length + 3);
    expect(new Set(after.map((h) => h.row.id)).size).toBe(after.length);
    for (const a of before) {
      const copies = after.filter((h) => h.row.name === a.row.name);
      expect(copies, a.row.name).toHaveLength(2);
      expect(copies[0].secrets).toEqual(copies[1].secrets);
    }
  });

  it("the plain file earlier versions wrote by default still imports, into another account", async () => {
    const before = (await bob.call("GET", "/api/passwords?limit=100")).body.pagination.total;
    const old = join(alice.env.VAULT_CLI_HOME!, "vault-plain.json");
    const r = await vault(bob.env, ["import", old, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ imported: 3, skipped: [], errors: [] });
    const theirs = await held(bob, OTHER_PASSPHRASE);
    expect(theirs).toHaveLength(before + 3);
    const bank = theirs.filter((t) => t.row.name === "Bank login");
    expect(bank).toHaveLength(2);
    expect(bank[0].secrets).toEqual(bank[1].secrets);
  });
});
