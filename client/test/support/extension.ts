import { chromium, type BrowserContext, type Frame, type Page, type Worker } from "playwright-core";
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer, type Server, type Socket, connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../../../scripts/lib/dev-identity.mjs";
import { extensionId } from "../../../scripts/lib/extension-id.mjs";
import { apiAs } from "./api";
import { CHROMIUM, signInThroughPage } from "./browser";
import { watchPersistentContext } from "./failures";
import { blindIndexes, deriveVaultKeys, type VaultKeys } from "../../../core/crypto/crypto";
import { placeOf, sealEntry } from "../../../core/crypto/envelope";
import { sealEntryV2 } from "./envelope-v2";
import { slot } from "./server";

/** The slot's own build: two files running at once would otherwise rebuild one folder under each other's browser. */
export const EXTENSION_DIR = join(ROOT, "dist", `browser-suite-${slot()}`, "extension");
export const EXTENSION_ID = extensionId();

/** Builds EXTENSION_DIR with the given web app origin. */
export function buildExtension(appOrigin: string) {
  execFileSync("node", ["scripts/build-extension.mjs"], {
    cwd: ROOT,
    stdio: "inherit",
    env: { ...process.env, EXTENSION_APP_ORIGIN: appOrigin, EXTENSION_OUT_DIR: EXTENSION_DIR },
  });
}

export const newProfile = () => mkdtempSync(join(tmpdir(), "vault-extension-"));

/**
 * Chromium's new headless mode with the unpacked extension. Every *.test host resolves to
 * loopback, so the local login site can be reached under names with real registrable domains.
 */
export async function launchWithExtension(
  profile: string,
  baseURL?: string,
  extraArgs: string[] = [],
): Promise<{ context: BrowserContext; worker: Worker }> {
  const context = watchPersistentContext(
    await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      baseURL,
      args: [
        "--no-sandbox",
        "--disable-dev-shm-usage",
        `--disable-extensions-except=${EXTENSION_DIR}`,
        `--load-extension=${EXTENSION_DIR}`,
        "--host-resolver-rules=MAP *.test 127.0.0.1",
        ...extraArgs,
      ],
    }),
  );
  const worker =
    context.serviceWorkers().find((w) => w.url().includes(EXTENSION_ID)) ??
    (await context.waitForEvent("serviceworker", (w) => w.url().includes(EXTENSION_ID)));
  return { context, worker };
}

/** The popup, opened as a page of the extension (the toolbar is not scriptable). */
export async function openPopup(context: BrowserContext): Promise<Page> {
  const popup = await context.newPage();
  await popup.setViewportSize({ width: 360, height: 480 });
  await popup.goto(`chrome-extension://${EXTENSION_ID}/popup.html`);
  await popup.locator("body[data-state]").waitFor();
  return popup;
}

/** A new profile with the extension, signed in to the web app at `base` and unlocked in its popup (where the passkey journeys start). */
export async function signedInWithExtension(
  base: string,
  token: string,
  passphrase: string,
  extraArgs: string[] = [],
): Promise<BrowserContext> {
  const { context } = await launchWithExtension(newProfile(), base, extraArgs);
  const app = await context.newPage();
  await app.goto(base);
  await signInThroughPage(app, token, passphrase);
  await app.close();
  await (await unlockInPopup(context, passphrase)).close();
  return context;
}

/** Unlocks the extension in its popup and waits until its first sync has cached `cached` entries; the popup stays open. */
export async function unlockInPopup(
  context: BrowserContext,
  passphrase: string,
  cached = 0,
): Promise<Page> {
  const popup = await openPopup(context);
  await popup.getByLabel("Master passphrase").fill(passphrase);
  await popup.getByRole("button", { name: "Unlock" }).click();
  await popup.locator("body[data-state=unlocked]").waitFor();
  while ((await extensionStatus(popup)).cached < cached)
    await new Promise((r) => setTimeout(r, 100));
  return popup;
}

/** `current`: live sync holds the fill copy current, so menus are drawn from it without the server. */
export type ExtensionStatus = {
  signedIn: boolean;
  unlocked: boolean;
  cached: number;
  synced: boolean;
  current: boolean;
  pending: number;
  lastSync: string | null;
  healthReady: boolean;
};

/** What the service worker reports, asked from an extension page like the popup does. */
export function extensionStatus(popup: Page): Promise<ExtensionStatus> {
  return popup.evaluate(() => chrome.runtime.sendMessage({ type: "status" }));
}

/** A request that crossed the relay: its method and path, whether it was conditional, its headers (names in lower case) and the status it got. */
export type Heard = {
  line: string;
  conditional: boolean;
  headers: Record<string, string>;
  status?: number;
  at: number;
};

/**
 * A TCP relay in front of the worker: the extension's web app origin in the tests, so "offline"
 * is a real refused connection while the worker keeps serving the other tests. It also notes each
 * HTTP/1.1 exchange it carries (`heard`), so a test can say what the server answered the browser.
 */
export async function startRelay(target: { host: string; port: number }, port = 0) {
  const sockets = new Set<Socket>();
  // Each browser-side connection by its first request line, so a test can cut one kind (`refuse`).
  const firstLines = new Map<Socket, string>();
  let refused: RegExp | null = null;
  // Each connection's latest request line, and the requests whose answers are held or trickled.
  const lastLines = new Map<Socket, string>();
  let paced: { line: RegExp; bytesPerSecond: number } | null = null;
  const heard: Heard[] = [];
  let server: Server | null = null;
  const listen = (p: number) =>
    new Promise<number>((resolve) => {
      server = createServer((client) => {
        const upstream = connect(target.port, target.host);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on("close", () => sockets.delete(s));
          s.on("error", () => s.destroy());
        }
        // Answers on one connection come in the order of its requests (RFC 9112 section 9.3.2).
        const waiting: Heard[] = [];
        client.on("close", () => {
          firstLines.delete(client);
          lastLines.delete(client);
          upstream.destroy();
        });
        client.on("data", (chunk: Buffer) => {
          const first = /^([A-Z]+ \S+) HTTP\/1\.1\r\n/.exec(chunk.toString("latin1"));
          if (first && !firstLines.has(client)) firstLines.set(client, first[1]!);
          if (first) lastLines.set(client, first[1]!);
          if (refused && refused.test(firstLines.get(client) ?? "")) {
            client.destroy();
            upstream.destroy();
            return;
          }
          for (const m of chunk
            .toString("latin1")
            .matchAll(/^([A-Z]+) (\S+) HTTP\/1\.1\r\n([\s\S]*?)\r\n\r\n/gm)) {
            const headers = Object.fromEntries(
              m[3]!
                .split("\r\n")
                .map((h) => [
                  h.slice(0, h.indexOf(":")).trim().toLowerCase(),
                  h.slice(h.indexOf(":") + 1).trim(),
                ]),
            );
            const r: Heard = {
              line: `${m[1]} ${m[2]}`,
              conditional: "if-none-match" in headers,
              headers,
              at: Date.now(),
            };
            waiting.push(r);
            heard.push(r);
          }
        });
        // Answers go back through a queue, so an answer to a paced request (`pace`) can be held or trickled.
        const back: Buffer[] = [];
        let pumping = false;
        const pump = async () => {
          if (pumping) return;
          pumping = true;
          while (back.length && !client.destroyed) {
            const p = paced && paced.line.test(lastLines.get(client) ?? "") ? paced : null;
            if (p && p.bytesPerSecond === 0) {
              await new Promise((r) => setTimeout(r, 20));
              continue;
            }
            let chunk = back.shift()!;
            const slice = p ? Math.max(1, Math.floor(p.bytesPerSecond / 20)) : chunk.length;
            if (chunk.length > slice) {
              back.unshift(chunk.subarray(slice));
              chunk = chunk.subarray(0, slice);
            }
            client.write(chunk);
            if (p) await new Promise((r) => setTimeout(r, 50));
          }
          pumping = false;
        };
        upstream.on("data", (chunk: Buffer) => {
          for (const m of chunk.toString("latin1").matchAll(/^HTTP\/1\.1 (\d{3}) /gm)) {
            const r = waiting.shift();
            if (r) r.status = Number(m[1]);
          }
          back.push(chunk);
          void pump();
        });
        upstream.on("end", () => void pump().then(() => client.end()));
        client.pipe(upstream);
      });
      server.listen(p, "127.0.0.1", () => resolve((server!.address() as { port: number }).port));
    });
  const bound = await listen(port);
  return {
    url: `http://127.0.0.1:${bound}`,
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      server = null;
    },
    resume: () => listen(bound),
    /**
     * Cuts the connections whose first request matches (`"GET /api/sync/live"`: the live-sync
     * socket) and refuses new ones until called with null.
     */
    refuse(line: RegExp | null) {
      refused = line;
      if (line) for (const [client, first] of firstLines) if (line.test(first)) client.destroy();
    },
    heard: () => heard.slice(),
    /**
     * Holds (`bytesPerSecond` 0) or trickles the answers to requests whose line matches, on the
     * connections where one is the latest request; null lets them go at full speed again.
     */
    pace(line: RegExp | null, bytesPerSecond = 0) {
      paced = line ? { line, bytesPerSecond } : null;
    },
    /** Cuts the connections whose latest request matches (a pull mid-answer), without refusing new ones. */
    cut(line: RegExp) {
      for (const [client, last] of lastLines) if (line.test(last)) client.destroy();
    },
  };
}

/**
 * `before: "scheme"`: sealed as a client did before the scheme was bound or the address sealed in
 * the payload (a version-2 envelope, no `address`): nothing vouches for its scheme.
 */
export type Seed = {
  name: string;
  website: string;
  url?: string;
  username: string;
  password: string;
  totp?: string;
  before?: "scheme";
};

/** Another device of the same user adds entries through sync: envelopes sealed in their place by the client's crypto. */
export async function seedEntries(
  base: string,
  user: { sub: string; token: string },
  keys: VaultKeys,
  seeds: Seed[],
) {
  const token = user.token;
  const api = await apiAs(base, token);
  const now = new Date().toISOString();
  const mutations = [];
  for (const s of seeds) {
    const id = crypto.randomUUID();
    // Sealed as the web client seals (vault.ts sealInput): the address inside the ciphertext.
    const secrets = {
      username: s.username,
      password: s.password,
      notes: "",
      category: "",
      totp: s.totp ?? "",
    };
    const place = placeOf(user.sub, { id, website: s.website, url: s.url ?? null });
    const envelope =
      s.before === "scheme"
        ? await sealEntryV2(keys, place, secrets)
        : await sealEntry(keys, place, { ...secrets, address: s.url ?? s.website });
    const idx = await blindIndexes(keys, {
      name: s.name,
      website: s.website,
      username: s.username,
    });
    mutations.push({
      action: "create",
      id,
      clientUpdatedAt: now,
      data: {
        name: s.name,
        website: s.website,
        url: s.url ?? null,
        tags: [],
        ...envelope,
        encryption_version: 3,
        ...idx,
        domain_hash: idx.domain_hash ?? null,
      },
    });
  }
  const res = await api.post("/api/passwords/sync", { mutations });
  if (
    res.status !== 200 ||
    res.body.results.some((r: { status: string }) => r.status !== "applied")
  )
    throw new Error(`seed: ${JSON.stringify(res.body)}`);
}

export { deriveVaultKeys };

/** A page of the browser at `url`, its script errors in the test output. */
export async function openPage(context: BrowserContext, url: string): Promise<Page> {
  const page = await context.newPage();
  page.on("pageerror", (e) => console.error(`page error: ${e.message}`));
  await page.goto(url);
  return page;
}

const FRAME_URL = `chrome-extension://${EXTENSION_ID}/menu.html`;

/**
 * The extension frames (fill menu, save offer) in a page, newest last; closed ones are detached.
 * A page with a login field has one from its load on: the fill menu made ahead, hidden and empty
 * until the person opens it (it has no data-state until then).
 */
export const extensionFrames = (p: Page): Frame[] =>
  p.frames().filter((f) => f.url().startsWith(FRAME_URL) && !f.isDetached());

/** The page's newest extension frame once it shows something (its body has a data-state). */
export async function extensionFrame(p: Page, timeout = 10_000): Promise<Frame> {
  const until = Date.now() + timeout;
  for (;;) {
    for (const f of extensionFrames(p).reverse()) {
      if (
        await f
          .locator("body[data-state]")
          .count()
          .catch(() => 0)
      )
        return f;
    }
    if (Date.now() > until) throw new Error(`no extension frame in ${p.url()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The person clicks into a login field (a real, trusted click): the fill menu opens beside it. */
export async function openFillMenu(p: Page, field = "Username"): Promise<Frame> {
  await p.getByLabel(field, { exact: true }).click();
  return extensionFrame(p);
}

/** What the person reads in an extension frame. */
export const frameText = (f: Frame) => f.locator("#box").innerText();

/** A real click on a control of the frame, once the frame says it counts clicks (shown long enough, visible). */
export async function pressInFrame(
  f: Frame,
  name: string | RegExp,
  role: "menuitem" | "button" = "menuitem",
) {
  await f.locator("body[data-armed]").waitFor();
  await f.getByRole(role, { name }).click();
}
