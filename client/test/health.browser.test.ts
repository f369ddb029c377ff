import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { server } from "./support/server";
import { deriveVaultKeys } from "../../core/crypto/crypto";
import { apiAs, openFor } from "./support/api";
import { automation } from "./support/automation";
import {
  fillEntry,
  launch,
  newUser,
  openEntry,
  screenshot,
  waitForPending,
  type Browser,
  type Page,
} from "./support/browser";
import { base, openSection, personContext } from "./support/journey";
import { signInWithEntries } from "./support/seed";
import { axeViolations, sidewaysScroll, THEMES, view } from "./support/pages";

// Vault health as a person meets it: a vault with a weak password, a reused pair, an exposed one
// (the Pwned Passwords stand-in lists its hash) and a service that offers TOTP; the health page
// lists each with its reason and links to the entry. What reached the outside: five-character
// prefixes at the stand-in, and nothing about any password in the worker's log or database.
const PASSPHRASE = "vault health passphrase 1";
const P = {
  weak: "sunshine2024",
  reused: "Qz8!rT4#mW6&yP2$",
  exposed: "Lx5@nV9!cB3#tK7%",
  github: "Hd3$fJ8!sM1@wQ6^",
  fine: "Vb7^gH2*eN5(kL9)",
  rotatedOld: "Rt6&uY3!iO8@pA1#",
  rotatedNew: "Mn4%bV7^cX2&zL5*",
};
const sha1 = (s: string) => createHash("sha1").update(s, "utf8").digest("hex").toUpperCase();

let browser: Browser;
let page: Page;
let user: Awaited<ReturnType<typeof newUser>>;
let api: Awaited<ReturnType<typeof apiAs>>;
let requestsBefore = 0;

type RangeRequest = { path: string; padding: string | null };
async function rangeRequests(): Promise<RangeRequest[]> {
  return (
    (await (await fetch(`${automation().pwnedRangeUrl}/__control/requests`)).json()) as {
      requests: RangeRequest[];
    }
  ).requests;
}

beforeAll(async () => {
  await fetch(`${automation().pwnedRangeUrl}/__control/hashes`, {
    method: "POST",
    body: JSON.stringify({ passwords: [P.exposed], count: 77 }),
  });
  requestsBefore = (await rangeRequests()).length;
  user = await newUser("health");
  api = await apiAs(base(), user.token);
  browser = await launch();
  ({ page } = await personContext(browser));
  await signInWithEntries(page, user, PASSPHRASE, [
    {
      name: "Weak site",
      website: "weak.example",
      username: "ann",
      password: P.weak,
    },
    {
      name: "Shop A",
      website: "shop-a.example",
      username: "ann",
      password: P.reused,
    },
    {
      name: "Shop B",
      website: "shop-b.example",
      username: "ann",
      password: P.reused,
    },
    {
      name: "Leaky forum",
      website: "forum.example",
      username: "ann",
      password: P.exposed,
    },
    {
      name: "GitHub",
      website: "github.com",
      username: "ann",
      password: P.github,
    },
    {
      name: "Fine bank",
      website: "bank.example",
      username: "ann",
      password: P.fine,
    },
  ]);
});

afterAll(async () => {
  await browser?.close();
});

const finding = (f: string) => page.locator(`#health-${f}`);
const listed = (f: string) => finding(f).locator("li .name a").allInnerTexts();
const reasonOf = (f: string, name: string) =>
  finding(f)
    .locator("li")
    .filter({ has: page.getByRole("link", { name, exact: true }) })
    .locator(".reason")
    .innerText();

describe("vault health", () => {
  it("lists the weak, reused, exposed and missing-2FA entries with their reasons, and a score", async () => {
    await openSection(page, "Vault health");
    await page.locator("#health-score").waitFor({ timeout: 60_000 });
    expect(await listed("exposed")).toEqual(["Leaky forum"]);
    expect(await reasonOf("exposed", "Leaky forum")).toBe("Seen 77 times in breaches.");
    expect((await listed("reused")).sort()).toEqual(["Shop A", "Shop B"]);
    expect(await reasonOf("reused", "Shop A")).toBe("Same password as Shop B.");
    expect(await listed("weak")).toEqual(["Weak site"]);
    // The estimator's own words: a common word with a year.
    expect(await reasonOf("weak", "Weak site")).toMatch(
      /^(Very weak|Weak|Fair): .*(common|year|guess)/i,
    );
    expect(await listed("no2fa")).toEqual(["GitHub"]);
    expect(await finding("old").count()).toBe(0);
    const score = Number(await page.locator("#health-score").innerText());
    expect(score).toBeGreaterThan(0);
    expect(score).toBeLessThan(100);
    const counts = await page.locator(".health-counts li").allInnerTexts();
    expect(counts).toEqual([
      "Exposed in data breaches: 1",
      "Reused passwords: 2",
      "Weak passwords: 1",
      "Old passwords: 0",
      "Two-factor authentication available: 1",
    ]);
    await screenshot(page, "screenshots/health-1280.png");
  });

  it("asked the breach check by five-character prefixes only, padded, and left nothing about a password on the server", async () => {
    const asked = (await rangeRequests()).slice(requestsBefore);
    const mine = [P.weak, P.reused, P.exposed, P.github, P.fine].map((p) => sha1(p));
    // One request per distinct password at most (other files' requests may interleave: only ours are counted).
    const ours = asked.filter((r) => mine.some((h) => r.path === `/range/${h.slice(0, 5)}`));
    expect(new Set(ours.map((r) => r.path))).toEqual(
      new Set(mine.map((h) => `/range/${h.slice(0, 5)}`)),
    );
    expect(ours.length).toBe(mine.length);
    for (const r of asked) {
      expect(r.path).toMatch(/^\/range\/[0-9A-F]{5}$/);
      expect(r.padding).toBe("true");
    }
    // The worker's log and its database files: no password, no hash, no hash suffix.
    const state = server().workerState;
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (
          /\.(sqlite|sqlite-wal|sqlite-shm|log)$/.test(name) &&
          (path.includes(`${join("v3", "d1")}`) || name === "worker.log")
        )
          files.push(path);
      }
    };
    walk(state);
    expect(files.some((f) => f.endsWith("worker.log"))).toBe(true);
    expect(files.some((f) => f.includes(join("v3", "d1")))).toBe(true);
    for (const f of files) {
      const text = readFileSync(f).toString("latin1");
      for (const [name, password] of Object.entries(P)) {
        expect(text.includes(password), `${name} password in ${f}`).toBe(false);
        const hash = sha1(password);
        for (const form of [hash, hash.toLowerCase(), hash.slice(5), hash.slice(5).toLowerCase()])
          expect(text.includes(form), `${name} hash in ${f}`).toBe(false);
      }
    }
    // Not even the prefixes reached the worker's log (those with a letter: digits alone occur by chance).
    const log = readFileSync(join(state, "worker.log"), "utf8");
    for (const h of mine)
      if (/[A-F]/.test(h.slice(0, 5)))
        expect(log.includes(h.slice(0, 5)), `prefix ${h.slice(0, 5)} in the log`).toBe(false);
  });

  it("links each finding to its entry, and a manual fix offers the change-password page with a generated password", async () => {
    const leaky = finding("exposed")
      .locator("li")
      .filter({ has: page.getByRole("link", { name: "Leaky forum", exact: true }) });
    await leaky.getByRole("button", { name: "Fix Leaky forum" }).click();
    const change = leaky.getByRole("link", { name: "Open forum.example's change-password page" });
    expect(await change.getAttribute("href")).toBe(
      "https://forum.example/.well-known/change-password",
    );
    expect(await change.getAttribute("rel")).toBe("noopener noreferrer");
    const generated = await leaky
      .getByRole("textbox", { name: "New password for Leaky forum", exact: true })
      .inputValue();
    expect(generated).toHaveLength(20);
    expect(generated).not.toBe(P.exposed);
    await screenshot(page, "screenshots/health-fix-1280.png");

    await finding("weak").getByRole("link", { name: "Weak site", exact: true }).click();
    await page.waitForURL(/\/vault\?open=/);
    await page.locator("#revealed[data-ready=true]").waitFor();
    expect(await page.locator("#revealed-heading").innerText()).toContain("Weak site");
  });

  it("is clean for axe and fits at 360 and 1280 pixels, in both themes", async () => {
    await openSection(page, "Vault health");
    await page.locator("#health-score").waitFor({ timeout: 60_000 });
    for (const width of [360, 1280]) {
      for (const theme of THEMES) {
        await view(page, width, theme);
        expect(await sidewaysScroll(page), `${width} ${theme}`).toBeNull();
        expect(await axeViolations(page), `${width} ${theme}`).toEqual([]);
        await screenshot(page, `screenshots/health-${width}-${theme}.png`);
      }
    }
    await view(page, 1280, "light");
  });

  it("a changed password is dated and the old one kept in the entry's history, inside the envelope", async () => {
    await openSection(page, "Vault");
    await fillEntry(page, {
      name: "Rotated",
      website: "rotated.example",
      username: "ann",
      password: P.rotatedOld,
    });
    await waitForPending(page, 0);
    const keys = await deriveVaultKeys(PASSPHRASE, user.sub);
    const first = await openFor(keys, user.sub, (await api.entries()).get("Rotated"));
    expect(first.password_changed_at).toBeTruthy();
    expect(first.password_history).toBeUndefined();
    await openEntry(page, "Rotated");
    await page.getByRole("button", { name: "Edit Rotated" }).click();
    await page.locator("#entry-dialog[open]").waitFor();
    await fillEntry(page, { name: "Rotated", password: P.rotatedNew });
    await waitForPending(page, 0);
    const row = (await api.entries()).get("Rotated");
    const after = await openFor(keys, user.sub, row);
    expect(after.password).toBe(P.rotatedNew);
    expect(after.password_history).toEqual([
      { password: P.rotatedOld, changed_at: after.password_changed_at },
    ]);
    expect(Date.parse(after.password_changed_at!)).toBeGreaterThan(
      Date.parse(first.password_changed_at!),
    );
    // Nothing of it in clear beside the envelope.
    expect(JSON.stringify(row)).not.toMatch(/password_changed_at|password_history/);
    // The person sees it on the entry: the old password only once they open the history.
    await openEntry(page, "Rotated");
    const history = page.locator('#revealed-fields dd[data-field="password_history"]');
    expect(await history.innerText()).not.toContain(P.rotatedOld);
    await history.getByText("Show 1 previous password").click();
    await expect.poll(() => history.locator("li").innerText()).toContain(P.rotatedOld);
  });
});
