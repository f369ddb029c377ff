/**
 * `vault link` end to end (docs/cli.md, "Secure links"): the real command against a real worker.
 * Each link it makes is opened as a recipient opens one: the ciphertext fetched through the public
 * route with no account, opened with the key in the URL's fragment by the core's code
 * (core/links openPayload, the one the web app's /l page runs), and compared with what was sent;
 * two are opened in the web app's own link page, in Chromium with no account.
 * Refusals make nothing: the person's links, listed through the API, are the same before and after.
 */
import { randomBytes, randomUUID } from "node:crypto";
import {
  closeSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, CHROMIUM_ARGS } from "../../client/test/support/chromium";
import { deriveVaultKeys, PBKDF2_ITERATIONS } from "../../core/crypto";
import { openPayload, passphraseVerifier } from "../../core/links";
import { sealInput, type EntryInput } from "../../core/vault";
import { person, signIn, startServers, type Person, type Servers } from "./servers";
import { vault } from "./support";

const PASSPHRASE = "link side passphrase";
/** Where the browser suite keeps its screenshots (client/test/support/browser.ts). */
const SHOTS = join(dirname(fileURLToPath(import.meta.url)), "../../test-artifacts/screenshots");
let at: Servers;
let alice: Person;

const ENTRY: EntryInput = {
  name: "Bank login",
  url: "https://bank.example/login",
  website: "bank.example",
  tags: [],
  category: "",
  username: "alice@bank",
  password: "P4ss with ünïcødé ✓",
  notes: "the branch is North",
  totp: "otpauth://totp/Bank?secret=JBSWY3DPEHPK3PXP",
};

/** What a recipient's browser does with the link: the public open route, then the fragment's key. */
async function openAsRecipient(url: string, verifier?: string) {
  const u = new URL(url);
  expect(u.origin).toBe(at.base);
  const id = /^\/l\/([A-Za-z0-9_-]{22})$/.exec(u.pathname)![1]!;
  const res = await fetch(`${at.base}/api/links/public/${id}/open`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(verifier ? { verifier } : {}),
  });
  if (res.status !== 200) return { status: res.status, payload: null };
  const body = (await res.json()) as { content: string };
  return { status: 200, payload: await openPayload(u.hash.slice(1), body.content) };
}

/** A file of `size` zero bytes, made without writing them. */
function sparse(path: string, size: number) {
  const fd = openSync(path, "w");
  ftruncateSync(fd, size);
  closeSync(fd);
}

/**
 * The largest file named edge.bin a link carries: the server stores at most 25 MB plus IV and tag
 * (src/domains/attachments), and the frame (a length and a JSON header with name and type) is sealed
 * with the bytes.
 */
const EDGE_BYTES =
  25 * 1024 * 1024 -
  4 -
  JSON.stringify({ v: 1, type: "file", name: "edge.bin", mime: "application/octet-stream" }).length;

const made = (stdout: string) =>
  JSON.parse(stdout) as { id: string; url: string; expires_at: string; max_views: number };
const linkIds = async () =>
  ((await alice.call("GET", "/api/links")).body.links as { id: string }[]).map((l) => l.id);

beforeAll(async () => {
  at = await startServers("cli-link");
  alice = await person(at, "link");
  await signIn(at, alice);
  const keys = await deriveVaultKeys(PASSPHRASE, alice.sub, PBKDF2_ITERATIONS, 1);
  const id = randomUUID();
  const { data } = await sealInput(keys, alice.sub, id, ENTRY);
  const sync = await alice.call("POST", "/api/passwords/sync", {
    mutations: [{ action: "create", id, data, clientUpdatedAt: new Date().toISOString() }],
  });
  expect(sync.status).toBe(200);
  const open = await vault(alice.env, ["unlock", "--passphrase-fd", "3"], { fd3: PASSPHRASE });
  expect(open.code, open.stderr).toBe(0);
}, 600_000);

afterAll(async () => {
  if (alice) {
    await vault(alice.env, ["lock"]);
    alice.cleanup();
  }
  await at?.stop();
});

describe("vault link", () => {
  it("links an entry's default fields, as the web app's Share by link ticks them, and the recipient reads them", async () => {
    const r = await vault(alice.env, ["link", "Bank login", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const link = made(r.stdout);
    expect(link.url).toBe(`${at.base}/l/${link.id}${new URL(link.url).hash}`);
    // Default expiry is 7 days, as the web app's.
    const ttl = Date.parse(link.expires_at) - Date.now();
    expect(ttl).toBeGreaterThan(7 * 24 * 3600_000 - 120_000);
    expect(ttl).toBeLessThanOrEqual(7 * 24 * 3600_000);
    const opened = await openAsRecipient(link.url);
    expect(opened.payload).toEqual({
      type: "text",
      fields: [
        { label: "Name", value: "Bank login" },
        { label: "Website", value: "bank.example" },
        { label: "Username", value: "alice@bank" },
        { label: "Password", value: ENTRY.password },
      ],
    });
    // One view by default: the second open is refused.
    expect((await openAsRecipient(link.url)).status).toBe(410);
  });

  it("sends the fields -f picks, in that order; plain output is the URL alone", async () => {
    const r = await vault(alice.env, ["link", "bank LOGIN", "-f", "totp", "-f", "notes"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^${at.base}/l/[A-Za-z0-9_-]{22}#[A-Za-z0-9_-]{43}\\n$`));
    expect((await openAsRecipient(r.stdout.trim())).payload).toEqual({
      type: "text",
      fields: [
        { label: "TOTP secret", value: ENTRY.totp },
        { label: "Notes", value: ENTRY.notes },
      ],
    });
  });

  it("links a file's exact bytes; max views reached, the server refuses", async () => {
    const file = join(alice.env.VAULT_CLI_HOME!, "report.pdf");
    const bytes = randomBytes(300_000);
    writeFileSync(file, bytes);
    const r = await vault(alice.env, [
      "link",
      "--file",
      file,
      "--max-views",
      "2",
      "--expires",
      "1h",
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const link = made(r.stdout);
    expect(link.max_views).toBe(2);
    expect(Math.abs(Date.parse(link.expires_at) - Date.now() - 3600_000)).toBeLessThan(120_000);
    for (let i = 0; i < 2; i++) {
      const { payload } = await openAsRecipient(link.url);
      expect(payload).toMatchObject({ type: "file", name: "report.pdf", mime: "application/pdf" });
      expect(Buffer.from((payload as { bytes: Uint8Array }).bytes).equals(bytes)).toBe(true);
    }
    expect((await openAsRecipient(link.url)).status).toBe(410);
    const meta = await fetch(`${at.base}/api/links/public/${link.id}`);
    expect(((await meta.json()) as { state: string }).state).toBe("used_up");
  });

  it("links a file of the largest size the server stores, its name and type sealed with it", async () => {
    const edge = join(alice.env.VAULT_CLI_HOME!, "edge.bin");
    sparse(edge, EDGE_BYTES);
    const r = await vault(alice.env, ["link", "--file", edge, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const { payload } = await openAsRecipient(made(r.stdout).url);
    const bytes = (payload as { bytes: Uint8Array }).bytes;
    expect([bytes.length, bytes.every((b) => b === 0)]).toEqual([EDGE_BYTES, true]);
  }, 120_000);

  it("links a text read from a file descriptor, byte for byte", async () => {
    const text = "line one\n  indented ✓\nlast line without newline";
    const r = await vault(alice.env, ["link", "--text-fd", "3", "--json"], { fd3: text });
    expect(r.code, r.stderr).toBe(0);
    expect((await openAsRecipient(made(r.stdout).url)).payload).toEqual({
      type: "text",
      fields: [{ label: "Secret", value: text }],
    });
  });

  it("a passphrase from a descriptor: the link opens only with its verifier", async () => {
    const r = await vault(alice.env, ["link", "Bank login", "--passphrase-fd", "3", "--json"], {
      fd3: "correct horse\n",
    });
    expect(r.code, r.stderr).toBe(0);
    const link = made(r.stdout);
    const meta = (await (await fetch(`${at.base}/api/links/public/${link.id}`)).json()) as {
      passphrase: { salt: string };
    };
    expect(meta.passphrase.salt).toBeTruthy();
    const wrong = await passphraseVerifier("wrong horse", meta.passphrase.salt);
    expect((await openAsRecipient(link.url, wrong)).status).toBe(403);
    const right = await passphraseVerifier("correct horse", meta.passphrase.salt);
    const opened = await openAsRecipient(link.url, right);
    expect(opened.status).toBe(200);
    expect((opened.payload as { fields: unknown[] }).fields).toHaveLength(4);
  });

  it("opens in the web app's link page in a browser with no account: the fields and the file's bytes", async () => {
    const fields = made(
      (await vault(alice.env, ["link", "Bank login", "-f", "username", "-f", "password", "--json"]))
        .stdout,
    );
    const file = join(alice.env.VAULT_CLI_HOME!, "lease.txt");
    const bytes = Buffer.from(`Lease ${"clause ".repeat(2000)}signed ✓`);
    writeFileSync(file, bytes);
    const filed = made((await vault(alice.env, ["link", "--file", file, "--json"])).stdout);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    try {
      const page = await (await browser.newContext({ acceptDownloads: true })).newPage();
      await page.goto(fields.url);
      await page.getByRole("button", { name: "Show the secret" }).click();
      await expect
        .poll(() => page.locator("#link-fields .link-value").allInnerTexts())
        .toEqual(["alice@bank", ENTRY.password]);
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: join(SHOTS, "cli-link-opened.png"), fullPage: true });
      await page.goto(filed.url);
      await page.getByRole("button", { name: "Show the secret" }).click();
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("link", { name: "Download lease.txt" }).click(),
      ]);
      expect(download.suggestedFilename()).toBe("lease.txt");
      expect(readFileSync((await download.path())!).equals(bytes)).toBe(true);
    } finally {
      await browser.close();
    }
  }, 120_000);

  it("refuses a bad entry, field, file or option with the right code and makes no link", async () => {
    const before = await linkIds();
    const dir = alice.env.VAULT_CLI_HOME!;
    const big = join(dir, "big.bin");
    sparse(big, 25 * 1024 * 1024 + 1);
    // One byte over what the server stores once the name and type are sealed with it.
    const edge = join(dir, "edge.bin");
    sparse(edge, EDGE_BYTES + 1);
    const cases: [string[], number, RegExp][] = [
      [["link", "--file", edge], 1, /edge\.bin is too large for a link/],
      [["link", "No such entry"], 6, /No entry named "No such entry"/],
      [["link", "Bank login", "-f", "pin"], 6, /has no pin/],
      [["link", "--file", join(dir, "missing.txt")], 1, /missing\.txt cannot be read/],
      [["link", "--file", dir], 1, /cannot be read/],
      [["link", "--file", big], 1, /big\.bin is too large for a link: it carries at most 25 MB/],
      [["link", "Bank login", "--expires", "2h"], 2, /--expires takes 1h, 1d, 7d or 30d/],
      [["link", "Bank login", "--max-views", "101"], 2, /--max-views/],
      [["link", "--text-fd", "3"], 2, /empty/],
      [["link", "Bank login", "--file", big], 2, /one of/],
    ];
    for (const [args, code, message] of cases) {
      const r = await vault(alice.env, args);
      expect([r.code, args.join(" ")]).toEqual([code, args.join(" ")]);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe("");
    }
    expect(await linkIds()).toEqual(before);
  });

  it("lists the links with their labels and revokes one: it stops opening", async () => {
    const r = await vault(alice.env, ["link", "--text-fd", "3", "--label", "for Bob", "--json"], {
      fd3: "to revoke",
    });
    expect(r.code, r.stderr).toBe(0);
    const link = made(r.stdout);
    const listed = await vault(alice.env, ["link", "--list", "--json"]);
    expect(listed.code, listed.stderr).toBe(0);
    const mine = JSON.parse(listed.stdout).links.find((l: { id: string }) => l.id === link.id);
    expect(mine).toMatchObject({ kind: "text", state: "active", label: "for Bob", max_views: 1 });
    // The server holds the label sealed, not in clear.
    const held = (await alice.call("GET", "/api/links")).body.links.find(
      (l: { id: string }) => l.id === link.id,
    );
    expect(JSON.stringify(held)).not.toContain("for Bob");

    const revoked = await vault(alice.env, ["link", "--revoke", link.id]);
    expect([revoked.code, revoked.stdout]).toEqual([0, `Revoked ${link.id}\n`]);
    expect((await openAsRecipient(link.url)).status).toBe(410);
    const plain = await vault(alice.env, ["link", "--list"]);
    expect(plain.stdout).toMatch(new RegExp(`^${link.id}\\ttext\\trevoked\\t0/1 views\\t`, "m"));
  });
});
