import {
  chromium,
  type Browser,
  type BrowserContext,
  type Page,
  type Request,
  type Response,
} from "playwright-core";
import { inject } from "vitest";
import { server } from "./server";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ROOT, signDevToken } from "../../../scripts/lib/dev-identity.mjs";
import { DEV_PASSWORD } from "../../../scripts/lib/dev-users.mjs";
import { CHROMIUM, CHROMIUM_ARGS } from "./chromium";
import { watchBrowser } from "./failures";

export { CHROMIUM };
export const ARTIFACTS = join(ROOT, "test-artifacts");

/**
 * The server set's Chromium, followed so that a failed test can show what its pages showed and said
 * (failures.ts). The global setup (worker.ts) launches one Chromium per server set, used by one
 * file at a time (server.ts); each call here is a connection of its own to it, whose contexts are this file's alone: `close()` closes
 * them and disconnects, and a file that dies without closing loses them with its connection
 * (playwright creates each context to be disposed when its connection goes). Connected over the
 * DevTools protocol, not playwright's own server, so that the client stays local: a download's
 * `path()` and file uploads by path work as with a launched browser. Outside the suite's global
 * setup (no endpoint provided), a Chromium of its own.
 */
export async function launch(): Promise<Browser> {
  const shared = inject("servers") ? server().chromiumEndpoint : undefined;
  return watchBrowser(
    shared
      ? await chromium.connectOverCDP(shared)
      : await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS }),
  );
}

/**
 * A fresh user: known to the local OpenID provider (its login page signs them in) and with a token
 * of the same issuer for API calls from Node, as `npm run token` gives scripts.
 */
export async function newUser(prefix: string) {
  const sub = `${prefix}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  const email = `${sub}@example.test`;
  const issuer = server().idpIssuer;
  const res = await fetch(`${issuer}/dev/users`, {
    method: "POST",
    body: new URLSearchParams({ sub, email }),
  });
  if (res.status !== 204)
    throw new Error(`registering ${sub} at the OpenID provider: ${res.status}`);
  return { sub, email, token: (await signDevToken({ sub, email, issuer })) as string };
}

function emailOf(token: string): string {
  return (
    JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as { email: string }
  ).email;
}

/**
 * `page.goto` that, when the page does not finish loading, says which of its requests were still
 * open and for how long: a navigation that hangs is a fault to find, not a timeout to raise.
 */
export async function openPage(page: Page, url: string) {
  const open = new Map<Request, number>();
  const answered = new Map<Request, number>();
  const started = (r: Request) => void open.set(r, Date.now());
  const headers = (res: Response) => void answered.set(res.request(), res.status());
  const ended = (r: Request) => void open.delete(r);
  page.on("request", started);
  page.on("response", headers);
  page.on("requestfinished", ended);
  page.on("requestfailed", ended);
  try {
    await page.goto(url);
  } catch (e) {
    const now = Date.now();
    const list = [...open].map(
      ([r, t]) =>
        `${r.method()} ${r.url()} (${r.resourceType()}, ${now - t} ms, ${answered.has(r) ? `answered ${answered.get(r)}, body unfinished` : "no answer"})`,
    );
    // The same URLs fetched from Node now: an answer here while the page's request hangs points at
    // the browser's connection, none at the server.
    const probes = await Promise.all(
      [...open.keys()].map(async (r) => {
        const t = Date.now();
        try {
          const res = await fetch(r.url(), { signal: AbortSignal.timeout(5_000) });
          await res.arrayBuffer();
          return `${r.url()} from Node: ${res.status} in ${Date.now() - t} ms`;
        } catch (err) {
          return `${r.url()} from Node: ${(err as Error).name} after ${Date.now() - t} ms`;
        }
      }),
    );
    throw new Error(
      `${(e as Error).message}\nrequests still open: ${list.length ? list.join("; ") : "none"}\n${probes.join("\n")}`,
    );
  } finally {
    page.off("request", started);
    page.off("response", headers);
    page.off("requestfinished", ended);
    page.off("requestfailed", ended);
  }
}

/**
 * Signs in as the token's user through the OpenID provider's login page (authorization code with
 * PKCE), and stops at the page's master passphrase form.
 */
export async function signInWithProvider(page: Page, token: string) {
  await openPage(page, "/");
  await page.getByRole("link", { name: "Sign in" }).click();
  await page.getByLabel("Email").fill(emailOf(token));
  await page.getByLabel("Password").fill(DEV_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByLabel("Master passphrase").waitFor();
}

/**
 * Fills and submits the master passphrase form of the page at "/" (the auth cookie names the user).
 * A new vault's form asks for the passphrase twice: typed again, as the person would.
 */
export async function submitSignIn(page: Page, passphrase: string) {
  await page.getByLabel("Master passphrase").fill(passphrase);
  const again = page.getByLabel("Type it again");
  if (await again.isVisible()) {
    await again.fill(passphrase);
    // A new vault's strength verdict has its room reserved (signin.browser.test.ts holds the button
    // still as it appears), but a verdict longer than that room still grows it: waited for, so the
    // click meets the button where it stays.
    await page.locator('#passphrase-strength[data-score]:not([data-score=""])').waitFor();
  }
  await page.getByRole("button", { name: /^(Open|Create) vault$/ }).click();
}

/**
 * Signs in as the token's user by setting the auth cookie the worker sets at the end of an OpenID
 * sign-in, for the page's own origin: used where the page reaches the worker through a proxy, whose
 * origin the provider's redirect (to the worker's own callback) would leave.
 */
export async function signInWithCookie(page: Page, token: string) {
  await openPage(page, "/");
  // Kept as long as the token lives, as the callback's Max-Age keeps it (a profile relaunched with
  // the same directory is still signed in).
  const { exp } = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as {
    exp: number;
  };
  await page.context().addCookies([
    {
      name: "access_token",
      value: token,
      url: new URL(page.url()).origin,
      httpOnly: true,
      sameSite: "Strict",
      expires: exp,
    },
  ]);
  await openPage(page, "/");
  await page.getByLabel("Master passphrase").waitFor();
}

/**
 * Signs in through the page and waits until the service worker controls the vault. The session
 * comes as the worker's OpenID callback leaves it: the auth cookie, holding a token of the local
 * provider's issuer made now (auth_time is this moment, as the provider's would be; step-up reads
 * it). The provider's login page is skipped (7 s a sign-in under load, 2 idle, about a hundred
 * sign-ins a run) except with `through: "provider"`: signin.browser.test.ts and the journeys
 * whose subject is that sign-in drive it themselves (signInWithProvider).
 */
export async function signInThroughPage(
  page: Page,
  token: string,
  passphrase: string,
  { through = "cookie" }: { through?: "cookie" | "provider" } = {},
) {
  await openPage(page, "/");
  if (through === "provider") await signInWithProvider(page, token);
  else {
    const { sub, email } = JSON.parse(
      Buffer.from(token.split(".")[1]!, "base64url").toString(),
    ) as { sub: string; email: string };
    await signInWithCookie(
      page,
      (await signDevToken({ sub, email, issuer: server().idpIssuer })) as string,
    );
  }
  await submitSignIn(page, passphrase);
  await page.waitForURL("**/vault");
  await dashboardReady(page);
  // Bounded, and said: a service worker whose install failed never becomes ready.
  const controlled = await page.evaluate(async () => {
    const taking = (async () => {
      await navigator.serviceWorker.ready;
      if (!navigator.serviceWorker.controller)
        await new Promise((r) =>
          navigator.serviceWorker.addEventListener("controllerchange", r, { once: true }),
        );
      return true;
    })();
    const late = new Promise<string>((r) =>
      setTimeout(async () => {
        const regs = await navigator.serviceWorker.getRegistrations();
        r(
          JSON.stringify(
            regs
              .map((g) => ({
                scope: g.scope,
                installing: g.installing?.state,
                waiting: g.waiting?.state,
                active: g.active?.state,
              }))
              .concat([{ controller: String(!!navigator.serviceWorker.controller) } as never]),
          ),
        );
      }, 20_000),
    );
    return Promise.race([taking, late]);
  });
  if (controlled !== true)
    throw new Error(
      `the service worker did not take control of the vault within 20 s: ${controlled}`,
    );
}

/** The dashboard script has rendered the vault and attached its handlers. */
export async function dashboardReady(page: Page) {
  await page.locator("body[data-ready=true]").waitFor({ timeout: 20_000 });
}

export async function screenshot(page: Page, name: string) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, name), fullPage: true });
}

export type Entry = {
  name: string;
  website?: string;
  username?: string;
  password?: string;
  notes?: string;
};

/** Opens the entry dialog for a new entry, unless it is already open (an edit in progress). */
export async function openNewEntry(page: Page) {
  if (await page.locator("#entry-dialog[open]").count()) return;
  await page.getByRole("button", { name: "New entry", exact: true }).click();
  await page.locator("#entry-dialog[open]").waitFor();
}

/** Fills the entry dialog (opening it for a new entry when it is closed) and saves. */
export async function fillEntry(page: Page, e: Entry) {
  await openNewEntry(page);
  await page.getByLabel("Name", { exact: true }).fill(e.name);
  if (e.website !== undefined) await page.getByLabel("Website", { exact: true }).fill(e.website);
  if (e.username !== undefined) await page.getByLabel("Username", { exact: true }).fill(e.username);
  if (e.password !== undefined) await page.getByLabel("Password", { exact: true }).fill(e.password);
  if (e.notes !== undefined) await page.getByLabel("Notes", { exact: true }).fill(e.notes);
  await page.getByRole("button", { name: "Save" }).click();
  // Saved: the form is unlocked and emptied (an error would leave the name in place).
  await page.waitForFunction(() => {
    const form = document.getElementById("entry-form");
    const name = document.getElementById("f-name") as HTMLInputElement;
    return (
      form?.getAttribute("aria-busy") === "false" &&
      (name.value === "" || document.getElementById("form-error")?.textContent !== "")
    );
  });
  const error = await page.locator("#form-error").innerText();
  if (error) throw new Error(`saving ${e.name} failed: ${error}`);
}

export const pendingCount = async (page: Page) =>
  Number(await page.locator("#pending").getAttribute("data-count"));

/**
 * Waits until the status line reads `n` pending changes and the device's queue holds `n`. The line
 * alone can still read a count from before a change that the list or the detail already shows (they
 * redraw ahead of the page's repaint), so its "0" does not prove a push; the queue does, as a change
 * leaves it only once the server has taken it.
 */
export async function waitForPending(page: Page, n: number) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    await page
      .locator(`#pending[data-count="${n}"]`)
      .waitFor({ timeout: Math.max(1, deadline - Date.now()) });
    const queued = await queuedChanges(page);
    if (queued === n) return;
    if (Date.now() > deadline)
      throw new Error(`the status line read ${n} pending, the queue still holds ${queued}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The changes this browser's store has queued for the server (every account on it). */
function queuedChanges(page: Page): Promise<number> {
  return page.evaluate(async () => {
    // Never create the store: a page that has not opened it yet holds nothing queued.
    if (!(await indexedDB.databases()).some((d) => d.name === "app-sync")) return 0;
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open("app-sync");
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    try {
      if (!db.objectStoreNames.contains("pending")) return 0;
      return await new Promise<number>((resolve, reject) => {
        const count = db.transaction("pending").objectStore("pending").count();
        count.onsuccess = () => resolve(count.result);
        count.onerror = () => reject(count.error);
      });
    } finally {
      db.close();
    }
  });
}

export const entryNames = (page: Page) => page.locator("#entries li .name").allInnerTexts();

/** The list row of an entry, by its exact name. */
export const entryRow = (page: Page, name: string) =>
  page
    .locator("#entries li")
    .filter({ has: page.locator(".name").getByText(name, { exact: true }) });

/**
 * Opens an entry from the list and waits for its detail: its fields once its secrets are opened,
 * or the reason they cannot be. An entry already open is closed first, so the old detail is never
 * mistaken for the new one.
 */
export async function openEntry(page: Page, name: string) {
  if (await page.locator("#revealed").isVisible()) {
    await page.locator("#hide-revealed").click();
    await page.locator("#revealed").waitFor({ state: "hidden" });
  }
  await entryRow(page, name).locator("button.entry-row").click();
  await page.locator(`#revealed[data-id]`).waitFor();
  await page.waitForFunction(() => {
    const box = document.getElementById("revealed");
    return (
      box?.dataset.ready === "true" ||
      (document.getElementById("detail-error")?.textContent ?? "") !== ""
    );
  });
}

/** A field of the open entry as the person reads it, a masked secret shown first. */
export async function revealedField(page: Page, field: string) {
  const dd = page.locator(`#revealed-fields dd[data-field="${field}"]`);
  await dd.waitFor();
  if ((await dd.getAttribute("data-masked")) === "true") {
    await page
      .getByRole("button", {
        name: `Show ${field === "totp" ? "totp secret" : field}`,
        exact: true,
      })
      .click();
    await page.locator(`#revealed-fields dd[data-field="${field}"][data-masked="false"]`).waitFor();
  }
  return dd.innerText();
}

/** What the page's local store and caches hold, read inside the page. */
export function localState(page: Page) {
  return page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const r = indexedDB.open("app-sync", 1);
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    const count = (store: string) =>
      new Promise<number>((resolve, reject) => {
        const r = db.transaction(store).objectStore(store).count();
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
    const names = await new Promise<string[]>((resolve, reject) => {
      const r = db.transaction("entries").objectStore("entries").getAll();
      r.onsuccess = () => resolve((r.result as { name: string }[]).map((e) => e.name).sort());
      r.onerror = () => reject(r.error);
    });
    const out = {
      entries: await count("entries"),
      names,
      pending: await count("pending"),
      metadata: await count("metadata"),
      caches: {} as Record<string, string[]>,
    };
    db.close();
    for (const name of await caches.keys())
      out.caches[name] = (await (await caches.open(name)).keys()).map(
        (k) => new URL(k.url).pathname + new URL(k.url).search,
      );
    return out;
  });
}

export type { Browser, BrowserContext, Page };
