// Passphrase change at 10,000 entries, before and after the account key (docs/decisions/crypto.md,
// "Crypto: an account key between the passphrase and the vault"), in Chromium with the web
// client's own modules (core/session changePassphrase, core/store): the same call the Account
// page makes, on a local store of `--entries` sealed entries.
//   before: no account key (or offline): every item key re-wrapped, every blind index recomputed,
//           one update queued per entry (pushing those updates afterwards is not in the figure);
//   after:  the account key wrapped again: the server's wrap read, opened with the current
//           passphrase, sealed under the new one, written. The "server" is in the page (a
//           compare-and-set like src/domains/account-key), so the figure is the client's work
//           without a network round trip.
//   node bench/account-key.mjs [--entries 10000] [--runs 3]
import { buildSync } from "esbuild";
import { cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { ROOT } from "../scripts/lib/dev-identity.mjs";

const { values } = parseArgs({
  options: {
    entries: { type: "string", default: "10000" },
    runs: { type: "string", default: "3" },
  },
});
const ENTRIES = Number(values.entries);
const RUNS = Number(values.runs);

const bundle = buildSync({
  stdin: {
    contents: `
      import { changePassphrase, moveOver } from "./core/session";
      import { openDb } from "./core/store";
      import { blindIndexes, deriveVaultKeys, makeKeyCheck, placeOf, sealEntry } from "./core/crypto";
      window.bench = { changePassphrase, moveOver, openDb, blindIndexes, deriveVaultKeys, makeKeyCheck, placeOf, sealEntry };`,
    resolveDir: ROOT,
    loader: "ts",
  },
  bundle: true,
  format: "iife",
  platform: "browser",
  external: ["crypto"],
  write: false,
  logLevel: "warning",
});

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-dev-shm-usage"],
});
const figures = { before: [], after: [] };
try {
  const page = await browser.newPage();
  await page.route("http://localhost/account-key-bench", (route) =>
    route.fulfill({ contentType: "text/html", body: "<!doctype html><title>bench</title>" }),
  );
  await page.goto("http://localhost/account-key-bench");
  await page.addScriptTag({ content: bundle.outputFiles[0].text });
  for (let run = 0; run < RUNS; run++) {
    for (const mode of ["before", "after"]) {
      const ms = await page.evaluate(
        async ({ mode, count, run }) => {
          const b = window.bench;
          const OLD = "bench old passphrase";
          const NEW = "bench new passphrase";
          const userId = `bench-${mode}-${run}`;
          const db = await b.openDb();
          const keys = await b.deriveVaultKeys(OLD, userId);
          const now = new Date().toISOString();
          const changes = [];
          for (let i = 0; i < count; i++) {
            const id = crypto.randomUUID();
            const website = `site${i}.example`;
            const env = await b.sealEntry(keys, b.placeOf(userId, { id, website }), {
              username: `user${i}@example.test`,
              password: `pw-${i}`,
              notes: "",
              category: "",
              totp: "",
              address: website,
            });
            const idx = await b.blindIndexes(keys, {
              name: `Entry ${i}`,
              website,
              username: `user${i}@example.test`,
            });
            changes.push({
              entry: {
                userId,
                id,
                name: `Entry ${i}`,
                website,
                url: null,
                tags: [],
                encryption_version: 3,
                ...env,
                created_at: now,
                updated_at: now,
                search_tokens: idx.search_tokens,
              },
            });
          }
          await db.rotate(userId, changes, keys, await b.makeKeyCheck(keys, userId));
          let api;
          if (mode === "after") {
            let stored = null;
            api = {
              accountKey: async () => stored,
              putAccountKey: async (w) => {
                if (w.revision !== (stored?.revision ?? 0) + 1) return "conflict";
                stored = w;
                return w;
              },
            };
            // The account moved over (its first wrap written), as its first unlock does.
            await b.moveOver(db, userId, OLD, keys, api);
          }
          const t0 = performance.now();
          await b.changePassphrase(db, userId, keys, OLD, NEW, api);
          const ms = performance.now() - t0;
          db.close();
          return ms;
        },
        { mode, count: ENTRIES, run },
      );
      figures[mode].push(ms);
      console.log(`run ${run + 1} ${mode}: ${(ms / 1000).toFixed(2)} s`);
    }
  }
} finally {
  await browser.close();
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(
  `\npassphrase change at ${ENTRIES} entries, median of ${RUNS} (${cpus().length} cores, load ${loadavg()[0].toFixed(1)}):`,
);
console.log(
  `  before (every entry re-keyed, ${ENTRIES} updates queued): ${(median(figures.before) / 1000).toFixed(2)} s`,
);
console.log(
  `  after  (account key wrapped again, one write):            ${(median(figures.after) / 1000).toFixed(2)} s`,
);
