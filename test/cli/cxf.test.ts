/**
 * `vault export --format cxf` and `vault import` of a CXF document end to end (docs/cli.md, "Export,
 * import and attachments"): the real command against a real worker, its own server pair. One
 * person's login, note, card and a login with two passkeys (one never used, one used) are written as
 * a FIDO Credential Exchange Format document by the core function the web app's CXF export calls;
 * the file is read back by the web app's CXF reader (core) and imported by a second account, whose
 * server then holds the same logins, notes and unused passkey. What CXF does not carry (a used
 * passkey, a card) is left out and said.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deriveVaultKeys, openEntry, PBKDF2_ITERATIONS, placeOf } from "../../core/crypto";
import { fromCxf, isCxf, passkeyOf, type StoredPasskey } from "../../core/passkeys";
import { sealInput, type EntryInput } from "../../core/vault";
import { ENTRIES } from "./io-entries";
import { person, signIn, startServers, type Person, type Servers } from "./servers";
import { VAULT_BIN, vault } from "./support";

const PASSPHRASE = "cxf export passphrase";
const OTHER_PASSPHRASE = "cxf import passphrase";

let at: Servers;
let alice: Person;
let bob: Person;

async function newPasskey(rpId: string, user: string, signCount: number): Promise<StoredPasskey> {
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
  ]);
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
  return passkeyOf({
    credentialId: crypto.getRandomValues(new Uint8Array(16)),
    rpId,
    userHandle: crypto.getRandomValues(new Uint8Array(16)),
    userName: user,
    displayName: `${user} (display)`,
    pkcs8,
    signCount,
  });
}

/** A passkey as CXF carries it: everything but the counter's history and the date it was made. */
const carried = ({ created_at: _, rp_name: __, ...p }: StoredPasskey) => p;

/** What the server holds for a person, opened with keys derived here from their passphrase. */
async function held(p: Person, passphrase: string) {
  const keys = await deriveVaultKeys(passphrase, p.sub, PBKDF2_ITERATIONS, 1);
  const res = await p.call("GET", "/api/passwords?limit=100");
  expect(res.status).toBe(200);
  return Promise.all(
    (res.body.data as any[]).map(async (row) => ({
      row,
      secrets: (await openEntry(keys, placeOf(p.sub, row), row)).secrets as Record<string, any>,
    })),
  );
}

let unused: StoredPasskey;
let used: StoredPasskey;
let planted: EntryInput[];

beforeAll(async () => {
  at = await startServers("cli-cxf");
  alice = await person(at, "cxfexp");
  bob = await person(at, "cxfimp");
  unused = await newPasskey("shop.example", "alice@shop", 0);
  used = await newPasskey("shop.example", "alice-old@shop", 3);
  planted = [
    ...ENTRIES,
    {
      name: "Shop",
      url: "https://shop.example/",
      website: "shop.example",
      tags: [],
      category: "",
      totp: "",
      username: "alice@shop",
      password: "sh0p-pw",
      notes: "",
      passkeys: [unused, used],
    },
  ];
}, 600_000);

afterAll(async () => {
  for (const p of [alice, bob]) {
    if (!p) continue;
    await vault(p.env, ["lock"]);
    p.cleanup();
  }
  await at?.stop();
});

describe("vault export --format cxf", () => {
  it("writes a CXF document (0600, plain, after the plain export's rule) that the web app's CXF reader opens to the same logins, notes and unused passkey", async () => {
    await signIn(at, alice);
    const keys = await deriveVaultKeys(PASSPHRASE, alice.sub, PBKDF2_ITERATIONS, 1);
    const now = new Date().toISOString();
    const mutations = [];
    for (const e of planted) {
      const id = randomUUID();
      const { data } = await sealInput(keys, alice.sub, id, e);
      mutations.push({ action: "create", id, data, clientUpdatedAt: now });
    }
    expect((await alice.call("POST", "/api/passwords/sync", { mutations })).status).toBe(200);
    const open = await vault(alice.env, ["unlock", "--passphrase-fd", "3"], { fd3: PASSPHRASE });
    expect(open.code, open.stderr).toBe(0);

    // A file password is for the encrypted format only; CXF is plain, as json and csv.
    const file = join(alice.env.VAULT_CLI_HOME!, "vault.cxf.json");
    const made = await vault(alice.env, ["export", "--format", "cxf", "-o", file, "--json"]);
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout)).toEqual({
      format: "cxf",
      file,
      entries: 3,
      unreadable: 0,
      leftOut:
        "1 passkey already used to sign in (CXF carries only passkeys whose counter is still zero); 1 card or identity (no CXF item type here yet: --format vault or json carries them)",
    });
    expect(made.stderr).toContain("Left out: 1 passkey already used");
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const doc = JSON.parse(readFileSync(file, "utf8"));
    expect(isCxf(doc)).toBe(true);
    expect(doc).toMatchObject({
      version: { major: 1, minor: 0 },
      exporterRpId: new URL(at.base).hostname,
      exporterDisplayName: "Credential vault",
      accounts: [{ email: expect.stringContaining("@") }],
    });
    const items = doc.accounts[0].items as any[];
    expect(items.map((i) => i.title).sort()).toEqual(["Bank login", "Recovery codes", "Shop"]);
    const bank = items.find((i) => i.title === "Bank login");
    expect(bank.scope.urls).toEqual(["https://bank.example/login"]);
    expect(bank.credentials).toEqual([
      {
        type: "basic-auth",
        username: { fieldType: "string", value: "alice@bank" },
        password: { fieldType: "concealed-string", value: 'P4ss,with "quotes"\nand a line' },
      },
      { type: "note", content: { fieldType: "string", value: "login notes" } },
    ]);
    const shop = items.find((i) => i.title === "Shop");
    const keysOf = shop.credentials.filter((c: { type: string }) => c.type === "passkey");
    expect(keysOf.map((c: { credentialId: string }) => c.credentialId)).toEqual([
      unused.credential_id,
    ]);
    expect(JSON.stringify(doc)).not.toContain(used.credential_id);
    expect(JSON.stringify(doc)).not.toContain("4111111111111111");

    // The web app's CXF reader (core) gives the entries back, the passkey's key included.
    const { entries, skipped } = await fromCxf(doc);
    expect(skipped).toBe(0);
    const byName = Object.fromEntries(entries.map((e) => [e.name, e]));
    expect(byName["Bank login"]).toMatchObject({
      url: "https://bank.example/login",
      username: "alice@bank",
      password: 'P4ss,with "quotes"\nand a line',
      notes: "login notes",
      passkeys: [],
    });
    expect(byName["Recovery codes"]).toMatchObject({
      notes: "1111-2222\n3333-4444\nunicode: ünïcødé ✓",
      username: "",
      password: "",
    });
    expect(byName.Shop).toMatchObject({ username: "alice@shop", password: "sh0p-pw" });
    expect(byName.Shop!.passkeys.map(carried)).toEqual([carried(unused)]);

    // Standard output, a pipe here (no question): the same document.
    const piped = await vault(alice.env, ["export", "--format", "cxf"]);
    expect(piped.code, piped.stderr).toBe(0);
    expect(JSON.parse(piped.stdout).accounts[0].items).toHaveLength(3);
    // The plain formats' one question on a terminal is answered by --yes, which CXF takes too.
    expect((await vault(alice.env, ["export", "--format", "cxf", "--yes"])).code).toBe(0);
  });

  it("asks on a terminal first, as the other plain formats do: no writes nothing", async () => {
    const file = join(alice.env.VAULT_CLI_HOME!, "asked.cxf.json");
    // `script` gives the command a pseudo-terminal; "n" is typed once the question is on it.
    const cmd = [process.execPath, VAULT_BIN, "export", "--format", "cxf", "-o", file]
      .map((a) => `'${a}'`)
      .join(" ");
    const child = spawn("script", ["-qec", cmd, "/dev/null"], {
      env: { PATH: process.env.PATH ?? "", HOME: alice.env.VAULT_CLI_HOME!, ...alice.env },
    });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      if (out.includes("[y/N]") && !child.stdin.writableEnded) child.stdin.end("n\r");
    });
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect(out).toContain("Every password of the vault, in plain text");
    expect([code, out]).toEqual([1, expect.stringContaining("Not exported")]);
    expect(existsSync(file)).toBe(false);
  });

  it("imports the CXF document into a second account: the server holds the same logins, notes and passkey", async () => {
    await signIn(at, bob);
    const open = await vault(bob.env, ["unlock", "--passphrase-fd", "3"], {
      fd3: OTHER_PASSPHRASE,
    });
    expect(open.code, open.stderr).toBe(0);
    const file = join(alice.env.VAULT_CLI_HOME!, "vault.cxf.json");
    const r = await vault(bob.env, ["import", file, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      format: "Credential Exchange Format (CXF)",
      imported: 3,
      skipped: [],
      errors: [],
    });
    const theirs = await held(bob, OTHER_PASSPHRASE);
    expect(theirs.map((t) => t.row.name).sort()).toEqual(["Bank login", "Recovery codes", "Shop"]);
    const bank = theirs.find((t) => t.row.name === "Bank login")!;
    expect(bank.row.url).toBe("https://bank.example/login");
    expect(bank.row.website).toBe("bank.example");
    expect(bank.secrets).toMatchObject({
      username: "alice@bank",
      password: 'P4ss,with "quotes"\nand a line',
      notes: "login notes",
    });
    const codes = theirs.find((t) => t.row.name === "Recovery codes")!;
    expect(codes.secrets.notes).toBe("1111-2222\n3333-4444\nunicode: ünïcødé ✓");
    expect(codes.secrets.kind).toBe("note");
    const shop = theirs.find((t) => t.row.name === "Shop")!;
    expect(shop.secrets).toMatchObject({ username: "alice@shop", password: "sh0p-pw" });
    expect((shop.secrets.passkeys as StoredPasskey[]).map(carried)).toEqual([carried(unused)]);
    expect((await vault(bob.env, ["get", "Shop"])).stdout).toBe("sh0p-pw");
  });
});
