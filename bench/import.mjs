// Import bench (docs/decisions.md, Sync: client importer): a 5,000-item 1Password 1PUX export read
// (unzip, parse) and sealed (one envelope and the blind indexes per item) in Chromium, as the import
// page does before it sends anything; with the page's longest task (PerformanceObserver "longtask").
//   node bench/import.mjs [--items 5000]
//
// The importer and the sealing are the web client's own modules, bundled by esbuild. The upload
// (POST /api/passwords/import in batches of 50) is not part of the figure: the server side is
// measured by bench/sync.mjs.
import { parseArgs } from "node:util";
import { buildSync } from "esbuild";
import { strToU8, zipSync } from "fflate";
import { chromium } from "playwright-core";
import { ROOT } from "../scripts/lib/dev-identity.mjs";

const { values } = parseArgs({ options: { items: { type: "string", default: "5000" } } });
const N = Number(values.items);

const items = Array.from({ length: N }, (_, i) => ({
  uuid: `I${i}`,
  favIndex: i % 50 === 0 ? 1 : 0,
  state: i % 40 === 0 ? "archived" : "active",
  categoryUuid: "001",
  details: {
    loginFields: [
      { value: `user${i}@example.test`, name: "username", fieldType: "T", designation: "username" },
      { value: `pw-${i}-${Math.random().toString(36).slice(2)}`, name: "password", fieldType: "P", designation: "password" },
    ],
    notesPlain: i % 5 === 0 ? `Note for item ${i}` : "",
    sections: [{ title: "More", fields: [{ title: "PIN", id: "pin", value: { concealed: String(1000 + (i % 9000)) } }] }],
    passwordHistory: i % 3 === 0 ? [{ value: `old-${i}`, time: 1690000000 }] : [],
  },
  overview: { title: `Site ${i}`, url: `https://site${i}.example.com/login`, urls: [{ url: `https://site${i}.example.com/login` }, { url: `https://app${i}.example.com` }], tags: i % 7 === 0 ? ["work"] : [] },
}));
const pux = zipSync({ "export.attributes": strToU8('{"version":3}'), "export.data": strToU8(JSON.stringify({ accounts: [{ attrs: { name: "Bench" }, vaults: [{ attrs: { name: "Private" }, items }] }] })) });

const bundle = buildSync({
  stdin: {
    contents: `
      import { readImportFile, secretPayload } from "./client/src/importers";
      import { deriveVaultKeys } from "./client/src/crypto";
      import { sealInput } from "./client/src/vault";
      window.bench = { readImportFile, secretPayload, deriveVaultKeys, sealInput };`,
    resolveDir: ROOT,
    loader: "ts",
  },
  bundle: true,
  format: "iife",
  platform: "browser",
  write: false,
  logLevel: "warning",
});

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: ["--no-sandbox", "--disable-dev-shm-usage"] });
try {
  const page = await browser.newPage();
  await page.route("http://localhost/import-bench", (route) => route.fulfill({ contentType: "text/html", body: "<!doctype html><title>import bench</title><p>bench</p>" }));
  await page.goto("http://localhost/import-bench");
  await page.addScriptTag({ content: bundle.outputFiles[0].text });
  const result = await page.evaluate(async (b64) => {
    const { readImportFile, secretPayload, deriveVaultKeys, sealInput } = window.bench;
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const keys = await deriveVaultKeys("bench passphrase", "bench-user", 1000);
    const longTasks = [];
    new PerformanceObserver((list) => list.getEntries().forEach((e) => longTasks.push(e.duration))).observe({ type: "longtask" });
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
          return sealInput(keys, "bench-user", crypto.randomUUID(), { name: c.name, website: c.website ?? "", url: c.url ?? "", tags: c.tags, username: s.username, password: s.password, notes: s.notes, category: c.folder ?? "", totp: s.totp ?? "", folder: c.folder ?? "", favorite: c.favorite, urls: s.urls, fields: s.fields, password_history: s.password_history });
        }),
      );
      sealed.push(...batch);
    }
    const t2 = performance.now();
    await new Promise((r) => setTimeout(r, 100));
    return { items: parsed.credentials.length, parseMs: t1 - t0, sealMs: t2 - t1, sealed: sealed.length, longestTaskMs: Math.max(0, ...longTasks), readLongest, longTasks: longTasks.length };
  }, Buffer.from(pux).toString("base64"));
  console.log(`1PUX, ${result.items} items (${(pux.length / 1024).toFixed(0)} KiB zipped)`);
  console.log(`  read (unzip + parse): ${result.parseMs.toFixed(0)} ms`);
  console.log(`  seal (${result.sealed} envelopes and blind indexes): ${result.sealMs.toFixed(0)} ms`);
  console.log(`  longest task: ${result.longestTaskMs.toFixed(0)} ms overall, ${result.readLongest.toFixed(0)} ms while reading (${result.longTasks} tasks over 50 ms)`);
} finally {
  await browser.close();
}
