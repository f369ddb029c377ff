// Import bench (docs/decisions/sync.md, "Client importer (`core/importers/`)"). Two parts:
// 1. In a bare page: a 5,000-item 1Password 1PUX export read (unzip, parse) and sealed (one envelope
//    and the blind indexes per item) in Chromium, as the import page does before it sends anything.
// 2. End to end through the Import page against wrangler dev: the 5,000-item 1PUX and a 5,000-item
//    KeePass KDBX 4 (Argon2id, 64 MiB as KeePassXC writes) chosen, previewed (with the master
//    password for the KDBX), imported, until the page reports every entry stored on the server.
// Each with the page's longest task (PerformanceObserver "longtask").
//   node bench/import.mjs [--items 5000] [--port 8733] [--no-e2e]
//
// The importer and the sealing are the web client's own modules (bundled by esbuild for part 1,
// the built client for part 2).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { build, buildSync } from "esbuild";
import { strToU8, zipSync } from "fflate";
import { chromium } from "playwright-core";
import { ROOT } from "../scripts/lib/dev-identity.mjs";

import { fmt, signDevToken, startWorker } from "./lib/harness.mjs";
import { seedVault } from "./lib/vault-seed.mjs";

const { values } = parseArgs({
  options: {
    items: { type: "string", default: "5000" },
    port: { type: "string", default: "8733" },
    "no-e2e": { type: "boolean", default: false },
  },
});
const N = Number(values.items);

const items = Array.from({ length: N }, (_, i) => ({
  uuid: `I${i}`,
  favIndex: i % 50 === 0 ? 1 : 0,
  state: i % 40 === 0 ? "archived" : "active",
  categoryUuid: "001",
  details: {
    loginFields: [
      { value: `user${i}@example.test`, name: "username", fieldType: "T", designation: "username" },
      {
        value: `pw-${i}-${Math.random().toString(36).slice(2)}`,
        name: "password",
        fieldType: "P",
        designation: "password",
      },
    ],
    notesPlain: i % 5 === 0 ? `Note for item ${i}` : "",
    sections: [
      {
        title: "More",
        fields: [{ title: "PIN", id: "pin", value: { concealed: String(1000 + (i % 9000)) } }],
      },
    ],
    passwordHistory: i % 3 === 0 ? [{ value: `old-${i}`, time: 1690000000 }] : [],
  },
  overview: {
    title: `Site ${i}`,
    url: `https://site${i}.example.com/login`,
    urls: [{ url: `https://site${i}.example.com/login` }, { url: `https://app${i}.example.com` }],
    tags: i % 7 === 0 ? ["work"] : [],
  },
}));
const pux = zipSync({
  "export.attributes": strToU8('{"version":3}'),
  "export.data": strToU8(
    JSON.stringify({
      accounts: [{ attrs: { name: "Bench" }, vaults: [{ attrs: { name: "Private" }, items }] }],
    }),
  ),
});

const bundle = buildSync({
  stdin: {
    contents: `
      import { readImportFile, secretPayload } from "./core/importers";
      import { deriveVaultKeys } from "./core/crypto/crypto";
      import { sealInput } from "./core/vault/vault";
      window.bench = { readImportFile, secretPayload, deriveVaultKeys, sealInput };`,
    resolveDir: ROOT,
    loader: "ts",
  },
  bundle: true,
  format: "iife",
  platform: "browser",
  // kdbxweb (the KeePass reader) names Node's crypto; this part reads no KeePass file.
  external: ["crypto"],
  write: false,
  logLevel: "warning",
});

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-dev-shm-usage"],
});
try {
  const page = await browser.newPage();
  await page.route("http://localhost/import-bench", (route) =>
    route.fulfill({
      contentType: "text/html",
      body: "<!doctype html><title>import bench</title><p>bench</p>",
    }),
  );
  await page.goto("http://localhost/import-bench");
  await page.addScriptTag({ content: bundle.outputFiles[0].text });
  const result = await page.evaluate(async (b64) => {
    const { readImportFile, secretPayload, deriveVaultKeys, sealInput } = window.bench;
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const keys = await deriveVaultKeys("bench passphrase", "bench-user", 1000);
    const longTasks = [];
    new PerformanceObserver((list) =>
      list.getEntries().forEach((e) => longTasks.push(e.duration)),
    ).observe({ type: "longtask" });
    const t0 = performance.now();
    const parsed = await readImportFile(bytes);
    const t1 = performance.now();
    const readLongest = Math.max(0, ...longTasks);
    // As the import page does: a batch of 50 sealed just before it is sent, a yield between batches.
    const sealed = [];
    for (let i = 0; i < parsed.credentials.length; i += 50) {
      await new Promise((r) => setTimeout(r, 0));
      const batch = await Promise.all(
        parsed.credentials.slice(i, i + 50).map((c) => {
          const s = secretPayload(c);
          return sealInput(keys, "bench-user", crypto.randomUUID(), {
            name: c.name,
            website: c.website ?? "",
            url: c.url ?? "",
            tags: c.tags,
            username: s.username,
            password: s.password,
            notes: s.notes,
            category: c.folder ?? "",
            totp: s.totp ?? "",
            folder: c.folder ?? "",
            favorite: c.favorite,
            urls: s.urls,
            fields: s.fields,
            password_history: s.password_history,
          });
        }),
      );
      sealed.push(...batch);
    }
    const t2 = performance.now();
    await new Promise((r) => setTimeout(r, 100));
    return {
      items: parsed.credentials.length,
      parseMs: t1 - t0,
      sealMs: t2 - t1,
      sealed: sealed.length,
      longestTaskMs: Math.max(0, ...longTasks),
      readLongest,
      longTasks: longTasks.length,
    };
  }, Buffer.from(pux).toString("base64"));
  console.log(`1PUX, ${result.items} items (${(pux.length / 1024).toFixed(0)} KiB zipped)`);
  console.log(`  read (unzip + parse): ${result.parseMs.toFixed(0)} ms`);
  console.log(
    `  seal (${result.sealed} envelopes and blind indexes): ${result.sealMs.toFixed(0)} ms`,
  );
  console.log(
    `  longest task: ${result.longestTaskMs.toFixed(0)} ms overall, ${result.readLongest.toFixed(0)} ms while reading (${result.longTasks} tasks over 50 ms)`,
  );
} finally {
  await browser.close();
}

if (!values["no-e2e"]) await endToEnd();

/** The KDBX test database builder (test/importers/keepass-files.ts, kdbxweb in Node) with `extra` logins. */
async function kdbxFile(extra) {
  const outfile = join(ROOT, "bench", "out", "keepass-files.mjs");
  mkdirSync(join(ROOT, "bench", "out"), { recursive: true });
  await build({
    stdin: {
      contents: `export { buildKdbx, KEEPASS_PASSWORD } from "./test/importers/keepass-files.ts";`,
      resolveDir: ROOT,
      loader: "ts",
    },
    outfile,
    bundle: true,
    format: "esm",
    platform: "node",
    logLevel: "warning",
    // kdbxweb is CommonJS and requires Node's crypto: an ESM bundle needs a require of its own.
    banner: {
      js: 'import { createRequire } from "node:module"; const require = createRequire(import.meta.url);',
    },
  });
  const { buildKdbx, KEEPASS_PASSWORD } = await import(pathToFileURL(outfile).href);
  // The known items (3 kept, 2 skipped) and `extra` more: N entries in all.
  return {
    bytes: await buildKdbx({
      version: 4,
      kdf: "argon2id",
      extra,
      argon2: { memory: 64, iterations: 4, parallelism: 2 },
    }),
    password: KEEPASS_PASSWORD,
  };
}

/** File chosen → preview → Import → every entry on the server, through the real Import page. */
async function endToEnd() {
  const PASSPHRASE = "bench passphrase";
  const kdbx = await kdbxFile(N - 3);
  const worker = await startWorker({ port: Number(values.port), name: "import" });
  const e2eBrowser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-dev-shm-usage"],
  });
  try {
    for (const [label, file, password] of [
      [
        "1PUX",
        {
          name: "1PasswordExport.1pux",
          mimeType: "application/octet-stream",
          buffer: Buffer.from(pux),
        },
        null,
      ],
      [
        "KDBX 4 (Argon2id 64 MiB)",
        {
          name: "Passwords.kdbx",
          mimeType: "application/octet-stream",
          buffer: Buffer.from(kdbx.bytes),
        },
        kdbx.password,
      ],
    ]) {
      const sub = `bench-import-${Date.now()}`;
      const token = await signDevToken({ sub, email: `${sub}@example.test`, ttl: 3600 });
      await seedVault({
        base: worker.base,
        token,
        sub,
        passphrase: PASSPHRASE,
        count: 1,
        website: () => "seed.example.com",
      });
      const context = await e2eBrowser.newContext({ baseURL: worker.base });
      await context.addInitScript(() => {
        window.__longTasks = [];
        new PerformanceObserver((l) => {
          for (const t of l.getEntries())
            window.__longTasks.push({ start: t.startTime, duration: t.duration });
        }).observe({ type: "longtask", buffered: true });
      });
      await context.addCookies([
        {
          name: "access_token",
          value: token,
          url: worker.base,
          httpOnly: true,
          sameSite: "Strict",
        },
      ]);
      const page = await context.newPage();
      await page.goto("/");
      await page.getByLabel("Master passphrase").fill(PASSPHRASE);
      await page.getByRole("button", { name: "Open vault" }).click();
      await page.locator("#entries li").first().waitFor({ timeout: 120_000 });
      await page
        .getByRole("navigation", { name: "Sections" })
        .getByRole("link", { name: "Import & export", exact: true })
        .click();
      await page.getByRole("heading", { level: 1, name: "Import & export" }).waitFor();
      await page.waitForTimeout(1000);

      const since = await page.evaluate(() => performance.now());
      const t0 = performance.now();
      await page.getByLabel(/Export file from another password manager/).setInputFiles(file);
      if (password) await page.getByLabel("Master password").fill(password);
      await page.getByRole("button", { name: "Preview" }).click();
      const start = page.getByRole("button", { name: /^Import \d+ entries$/ });
      await start.waitFor({ timeout: 300_000 });
      const previewed = performance.now() - t0;
      const ready = Number((await start.innerText()).match(/\d+/)[0]);
      await start.click();
      await page.waitForFunction(
        (n) => document.getElementById("import-done")?.dataset.imported === String(n),
        ready,
        { timeout: 600_000, polling: 100 },
      );
      const total = performance.now() - t0;
      const stored = (
        await (
          await fetch(`${worker.base}/api/passwords?limit=1`, {
            headers: { authorization: `Bearer ${token}` },
          })
        ).json()
      ).pagination?.total;
      const tasks = await page.evaluate(
        (s) => window.__longTasks.filter((t) => t.start >= s),
        since,
      );
      const longest = tasks.reduce((m, t) => Math.max(m, t.duration), 0);
      console.log(
        `end to end through the Import page, ${label}, ${ready} entries (${(file.buffer.length / 1024).toFixed(0)} KiB):`,
      );
      console.log(
        `  file chosen -> preview shown: ${fmt(previewed / 1000, 1)} s; -> all ${ready} stored on the server: ${fmt(total / 1000, 1)} s${stored !== undefined ? ` (the server lists ${stored} entries with the seed one)` : ""}`,
      );
      console.log(`  longest task: ${fmt(longest, 0)} ms (${tasks.length} tasks over 50 ms)`);
      await context.close();
    }
  } finally {
    await e2eBrowser.close();
    worker.stop?.();
  }
}
