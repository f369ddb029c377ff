import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { server } from "./support/server";
import { fingerprint, type PublicJwk } from "../../core/crypto/trust";
import { apiAs } from "./support/api";
import {
  dashboardReady,
  entryRow,
  launch,
  newUser,
  openEntry,
  screenshot,
  signInThroughPage,
  signInWithCookie,
  submitSignIn,
  type Browser,
  type Page,
} from "./support/browser";
import { openSection } from "./support/journey";
import { seedEntries } from "./support/seed";
import {
  fullPull,
  isListing,
  isSyncPull,
  startMaliciousServer,
  withRounds,
  type MaliciousServer,
} from "./support/malicious-server";

// docs/decisions/crypto.md, "Crypto: the clients hold against a malicious server": the web client against a hostile server. Real Chromium talks to the real worker through
// a proxy that rewrites the API's answers; for each attack the page refuses or warns, and the
// secret never reaches the page.
const PASSPHRASE = "hostile server passphrase";
const BANK_SECRET = "bank-secret-7f3a";
const base = server().baseUrl;
let browser: Browser;
let evil: MaliciousServer;

type User = Awaited<ReturnType<typeof newUser>>;
type Listed = {
  id: string;
  name: string;
  website: string | null;
  url: string | null;
  wrapped_item_key: string;
  encrypted_data: string;
};
type Change = Listed & { _deleted: boolean };

/** A browser profile (one device) that reaches the server only through the proxy. */
async function device(user: User, passphrase = PASSPHRASE): Promise<Page> {
  const context = await browser.newContext({ baseURL: evil.base });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: evil.base });
  const page = await context.newPage();
  page.on("pageerror", (e) => console.error(`page error: ${e.message}`));
  await signInThroughPage(page, user.token, passphrase);
  return page;
}

/** A user with Bank (the secret) and Forum in the vault, set up through the API (seed.ts). */
async function bankUser(prefix: string): Promise<{ user: User; entries: Map<string, Listed> }> {
  const user = await newUser(prefix);
  await seedEntries(user, PASSPHRASE, [
    { name: "Bank", website: "bank.example", username: "alice", password: BANK_SECRET },
    { name: "Forum", website: "forum.example", username: "alice", password: "forum-pw" },
  ]);
  return {
    user,
    entries: (await (await apiAs(base, user.token)).entries()) as Map<string, Listed>,
  };
}

/** Such a user on a device of theirs, the two entries pulled and listed. */
async function userWithBank(
  prefix: string,
): Promise<{ user: User; page: Page; entries: Map<string, Listed> }> {
  const { user, entries } = await bankUser(prefix);
  const page = await device(user);
  for (const name of entries.keys()) await entryRow(page, name).waitFor();
  return { user, page, entries };
}

/** Nothing of the secret in the page: not in the DOM, not in a field's value. */
async function neverShown(page: Page, secret = BANK_SECRET) {
  expect(await page.content()).not.toContain(secret);
  const values = await page
    .locator("input, textarea")
    .evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
  expect(values.join("\n")).not.toContain(secret);
}

async function syncNow(page: Page) {
  // A sync already under way may have asked before the test's rewrite was in place, and a press
  // during it joins it rather than pulling again: wait until none runs, so this press pulls anew.
  await expect.poll(() => page.locator("#net-state").innerText()).not.toContain("syncing");
  const pulled = page.waitForResponse(
    (r) => new URL(r.url()).pathname === "/api/passwords/sync" && r.request().method() === "GET",
  );
  await page.getByRole("button", { name: "Sync now" }).click();
  await pulled;
}

const swap = (a: Listed, b: Listed) => (e: Change) =>
  e.id === a.id
    ? { ...e, wrapped_item_key: b.wrapped_item_key, encrypted_data: b.encrypted_data }
    : e.id === b.id
      ? { ...e, wrapped_item_key: a.wrapped_item_key, encrypted_data: a.encrypted_data }
      : e;

beforeAll(async () => {
  evil = await startMaliciousServer(base);
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
  await evil?.stop();
});

describe("a malicious server", () => {
  it("swaps two entries' blobs: the page says they do not belong and shows neither secret", async () => {
    const { page, entries } = await userWithBank("swap");
    const bank = entries.get("Bank")!;
    const forum = entries.get("Forum")!;
    evil.rewrite({
      when: isSyncPull,
      url: fullPull,
      json: (body: { changes: Change[] }) => ({
        ...body,
        changes: body.changes.map(swap(bank, forum)),
        fullSyncRequired: true,
      }),
    });
    evil.rewrite({
      when: (r) => r.method === "POST" && r.path === `/api/passwords/${forum.id}/reveal`,
      json: () => ({
        envelope: {
          wrappedItemKey: bank.wrapped_item_key,
          encryptedData: bank.encrypted_data,
          version: 3,
        },
      }),
    });
    try {
      await syncNow(page);
      await expect
        .poll(() => page.locator("#foreign-key").innerText())
        .toMatch(
          /^2 entries not shown\. This entry's encrypted data does not belong to this entry, account or website/,
        );
      await openEntry(page, "Forum");
      await expect
        .poll(() => page.locator("#toast").innerText())
        .toMatch(/^Cannot reveal: This entry's encrypted data does not belong/);
      // The copy shortcut on the open entry: its secrets did not open, so nothing is copied.
      await page.keyboard.press("c");
      await expect
        .poll(() => page.locator("#toast").innerText())
        .toMatch(/^Cannot copy: This entry's encrypted data does not belong/);
      expect(await page.evaluate(() => navigator.clipboard.readText())).not.toContain(BANK_SECRET);
      await page.getByRole("button", { name: "Edit Forum" }).click();
      await expect
        .poll(() => page.locator("#toast").innerText())
        .toMatch(/^Cannot edit: This entry's encrypted data does not belong/);
      await neverShown(page);
      await screenshot(page, "malicious-swap.png");
      // Nothing was re-sealed or pushed from what the server planted.
      expect(await page.locator("#pending").getAttribute("data-count")).toBe("0");
    } finally {
      evil.honest();
    }
  });

  it("moves a blob into another user's listing: that user's page cannot open it and says so", async () => {
    const alice = await bankUser("owner");
    const bank = alice.entries.get("Bank")!;
    const bob = await newUser("other");
    await seedEntries(bob, PASSPHRASE, [
      { name: "Mail", website: "mail.example", username: "bob", password: "bob-mail-pw" },
    ]);
    const page = await device(bob);
    await entryRow(page, "Mail").waitFor();
    const mail = ((await (await apiAs(base, bob.token)).entries()) as Map<string, Listed>).get(
      "Mail",
    )!;
    evil.rewrite({
      when: isSyncPull,
      url: fullPull,
      json: (body: { changes: Change[] }) => ({
        ...body,
        // Alice's Bank as it is, and her blob in place of Bob's own Mail entry.
        changes: [
          ...body.changes.map((e) =>
            e.id === mail.id
              ? {
                  ...e,
                  wrapped_item_key: bank.wrapped_item_key,
                  encrypted_data: bank.encrypted_data,
                }
              : e,
          ),
          { ...bank, _deleted: false },
        ],
        fullSyncRequired: true,
      }),
    });
    evil.rewrite({
      when: (r) => r.method === "POST" && r.path.endsWith("/reveal"),
      json: () => ({
        envelope: {
          wrappedItemKey: bank.wrapped_item_key,
          encryptedData: bank.encrypted_data,
          version: 3,
        },
      }),
    });
    try {
      await syncNow(page);
      await expect
        .poll(() => page.locator("#foreign-key").innerText())
        .toMatch(/^2 entries not shown\. This entry's encrypted data does not belong/);
      for (const name of ["Bank", "Mail"]) {
        await openEntry(page, name);
        await expect
          .poll(() => page.locator("#toast").innerText())
          .toMatch(/^Cannot reveal: This entry's encrypted data does not belong/);
      }
      await neverShown(page);
    } finally {
      evil.honest();
    }
  });

  it("downgrades the key-derivation settings: sign-in refuses them and derives nothing", async () => {
    // No device of this user's is open: the count of requests below is of the new sign-in's only.
    const { user } = await bankUser("kdf");
    evil.rewrite({
      when: isListing,
      json: (body: { data: Listed[] }) => ({
        ...body,
        data: body.data.map((e) => ({
          ...e,
          wrapped_item_key: withRounds(e.wrapped_item_key, 1000),
        })),
      }),
    });
    const context = await browser.newContext({ baseURL: evil.base });
    const page = await context.newPage();
    try {
      await signInWithCookie(page, user.token);
      const from = evil.seen.length;
      await submitSignIn(page, PASSPHRASE);
      await expect
        .poll(() => page.locator("#signin-error").innerText())
        .toBe(
          "The server asked for weaker key derivation (PBKDF2 with 1000 rounds) than this app allows (600000). Nothing was derived or sent.",
        );
      expect(new URL(page.url()).pathname).toBe("/");
      // Nothing was written: the session, the listing whose settings were refused, and the first
      // pull's read, which a new browser starts at the click, before the settings are known (it
      // carries ciphertext only; docs/decisions/client.md, "Client: the first row on a new browser"). Only
      // this user's requests count: the pages of the tests before this one still run (live sync
      // retries its connection to this proxy).
      const after = () =>
        evil.seen
          .slice(from)
          .filter((r) => r.path.startsWith("/api/") && r.credentials.includes(user.token));
      await expect
        .poll(() =>
          after()
            .map((r) => `${r.method} ${r.path}`)
            .sort(),
        )
        .toEqual(["GET /api/auth/session", "GET /api/passwords", "GET /api/passwords/sync"]);
      await screenshot(page, "malicious-kdf.png");
    } finally {
      evil.honest();
      await context.close();
    }
  });

  it("replays the account key wrap from before a passphrase change: this device refuses the old wrap", async () => {
    // A passphrase change wraps the account key again (docs/decisions/crypto.md, "Crypto: an
    // account key between the passphrase and the vault"): what a server can replay is the wrap
    // the old passphrase opens, bound to its revision.
    const { user, page } = await userWithBank("replay");
    const api = await apiAs(base, user.token);
    const oldWrap = (await api.get("/api/account-key")).body.account_key;
    expect(oldWrap).toMatchObject({ key_version: 1, revision: 1 });
    const NEW = "a brand new passphrase";
    // The change lives in the account settings.
    await openSection(page, "Account");
    const reloaded = page.waitForEvent("load");
    await page.getByLabel("Current master passphrase").fill(PASSPHRASE);
    await page.getByLabel("New master passphrase").fill(NEW);
    await page.getByLabel("Repeat the new passphrase").fill(NEW);
    await page.getByRole("button", { name: "Change passphrase" }).click();
    await reloaded;
    await dashboardReady(page);
    expect((await api.get("/api/account-key")).body.account_key).toMatchObject({ revision: 2 });

    // After signing out, the server serves the old wrap to the old (perhaps leaked) passphrase,
    // then no wrap at all (as if the account had never moved to an account key).
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL((u) => u.pathname === "/");
    const isAccountKey = (r: { method: string; path: string }) =>
      r.method === "GET" && r.path === "/api/account-key";
    try {
      await signInWithCookie(page, user.token);
      for (const [served, refusal] of [
        [
          oldWrap,
          "The server offered an older account key wrap (revision 1) than this device has seen (revision 2). Refused: nothing was opened.",
        ],
        [null, "The server no longer offers this account's key wrap. Refused: nothing was opened."],
      ] as const) {
        evil.rewrite({ when: isAccountKey, json: (body) => ({ ...body, account_key: served }) });
        await submitSignIn(page, PASSPHRASE);
        await expect.poll(() => page.locator("#signin-error").innerText()).toBe(refusal);
        expect(new URL(page.url()).pathname).toBe("/");
      }
    } finally {
      evil.honest();
    }
  });

  it("injects URLs into an entry's fields: the page fetches none of them and the moved entry does not open", async () => {
    const { page, entries } = await userWithBank("inject");
    const bank = entries.get("Bank")!;
    const beacon = (what: string) => `${evil.base}/beacon-${what}`;
    evil.rewrite({
      when: isSyncPull,
      url: fullPull,
      json: (body: { changes: Change[] }) => ({
        ...body,
        changes: body.changes.map((e) =>
          e.id === bank.id
            ? {
                ...e,
                name: `Bank <img src="${beacon("name")}">`,
                website: "attacker.example",
                url: beacon("url"),
                tags: [`<img src=${beacon("tag")}>`],
              }
            : e,
        ),
        fullSyncRequired: true,
      }),
    });
    try {
      await syncNow(page);
      const row = page.locator("#entries li", { hasText: "Bank <img" });
      await expect.poll(() => row.count()).toBe(1);
      // Shown as text, never as markup.
      expect(await page.locator("#entries img").count()).toBe(0);
      await expect
        .poll(() => page.locator("#foreign-key").innerText())
        .toMatch(/^1 entry not shown\. This entry's encrypted data does not belong/);
      await row.locator("button.entry-row").click();
      await expect
        .poll(() => page.locator("#toast").innerText())
        .toMatch(/^Cannot reveal: This entry's encrypted data does not belong/);
      await page.reload();
      await dashboardReady(page);
      await neverShown(page);
      expect(evil.seen.filter((r) => r.path.startsWith("/beacon"))).toEqual([]);
    } finally {
      evil.honest();
    }
  });

  it("substitutes a recipient's public key: the first key is pinned, a different one is flagged and not trusted silently", async () => {
    const erin = await newUser("erin");
    const jwk = async (): Promise<PublicJwk> => {
      const { kty, crv, x, y } = (await crypto.subtle.exportKey(
        "jwk",
        (
          await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, [
            "deriveBits",
          ])
        ).publicKey,
      )) as PublicJwk;
      return { kty, crv, x, y };
    };
    const [real, forged] = [await jwk(), await jwk()];
    expect(
      (await (await apiAs(base, erin.token)).put("/api/sharing/public-key", { publicKey: real }))
        .status,
    ).toBe(200);
    const dave = await newUser("dave");
    const page = await device(dave);
    await page.getByRole("link", { name: "Contacts' keys" }).click();
    await page.locator("body[data-ready=true]").waitFor();
    const check = async () => {
      await page.getByLabel("Contact's email").fill(erin.email);
      await page.getByRole("button", { name: "Check key" }).click();
      await page.locator("#result:not([hidden])").waitFor();
    };

    await check();
    expect(await page.locator("#result").getAttribute("data-status")).toBe("new");
    expect(await page.locator("#result-fingerprint").innerText()).toBe(await fingerprint(real));

    evil.rewrite({
      when: (r) =>
        r.method === "GET" && r.path === "/api/sharing/public-key" && r.search.includes("email="),
      json: (body: { publicKey: PublicJwk }) => ({ ...body, publicKey: forged }),
    });
    try {
      await check();
      expect(await page.locator("#result").getAttribute("data-status")).toBe("changed");
      const warning = page.getByRole("alert").filter({ hasText: "different key" });
      await expect.poll(() => warning.innerText()).toContain(`Pinned: ${await fingerprint(real)}`);
      expect(await page.locator("#result-fingerprint").innerText()).toBe(await fingerprint(forged));
      await screenshot(page, "malicious-key-substitution.png");
      // Checking again does not make the forged key pinned by repetition.
      await check();
      expect(await page.locator("#result").getAttribute("data-status")).toBe("changed");
      // The person compared the digits with Erin (say she did reset her keys) and accepts.
      await page.getByRole("button", { name: /trust the new key/ }).click();
      await expect.poll(() => page.locator("#result").getAttribute("data-status")).toBe("ok");
      await check();
      expect(await page.locator("#result").getAttribute("data-status")).toBe("ok");
    } finally {
      evil.honest();
    }
    // The honest server's key is now the changed one for this device.
    await check();
    expect(await page.locator("#result").getAttribute("data-status")).toBe("changed");
  });
});
