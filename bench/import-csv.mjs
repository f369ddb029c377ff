// CSV import bench (docs/decisions/sync.md, "Client importer (`core/importers/`)": a 100,000-row
// CSV). Reads three generated CSV exports of N rows each with the importer the web app and the
// command line use (core/importers/read.ts, bundled by esbuild): a browser export (Chrome's
// name,url,username,password,note), a LastPass export in which one row in ten is a typed secure
// note (a card, a bank account, a Wi-Fi network) and 1Password 7's all-fields Mac CSV (logins,
// cards, bank accounts). For each: the file's size, the time from text to items (median of the
// runs), items per second, the heap the parsed items hold (after a collection, with them and
// without) and the process's peak resident memory. Reading only: an
// import then sends at most 5,000 entries from a file of at most 12 MB, so these files are read
// and refused at that step, and what is measured is the parse a person's large file costs.
//   node --expose-gc bench/import-csv.mjs [--rows 100000] [--runs 3]
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { buildSync } from "esbuild";
import { ROOT } from "../scripts/lib/dev-identity.mjs";

const { values } = parseArgs({
  options: {
    rows: { type: "string", default: "100000" },
    runs: { type: "string", default: "3" },
  },
});
const N = Number(values.rows);
const RUNS = Number(values.runs);
if (!globalThis.gc) {
  console.error(
    "Run with node --expose-gc bench/import-csv.mjs (the heap is measured after a collection)",
  );
  process.exit(2);
}

const out = join(ROOT, "bench/out/import-csv");
mkdirSync(out, { recursive: true });
buildSync({
  entryPoints: [join(ROOT, "core/importers/read.ts")],
  bundle: true,
  format: "esm",
  platform: "node",
  outfile: join(out, "read.mjs"),
  logLevel: "error",
});
const { parseImport } = await import(pathToFileURL(join(out, "read.mjs")).href);

const q = (s) => `"${String(s).replace(/"/g, '""')}"`;
const files = {
  "browser (Chrome)": () =>
    [
      "name,url,username,password,note",
      ...Array.from(
        { length: N },
        (_, i) =>
          `Site ${i},https://site${i}.example.com/login,user${i}@example.test,${q(`pw-${i}-"x",y`)},${q(`note ${i}\nsecond line`)}`,
      ),
    ].join("\n"),
  "LastPass (1 in 10 a typed note)": () =>
    [
      "url,username,password,totp,extra,name,grouping,fav",
      ...Array.from({ length: N }, (_, i) => {
        if (i % 10 !== 0)
          return `https://site${i}.example.com,user${i},pw-${i},,${q(`extra ${i}`)},Site ${i},Group${i % 20},${i % 7 === 0 ? 1 : 0}`;
        const note = [
          `NoteType:Credit Card\nLanguage:en-US\nName on Card:Holder ${i}\nType:Visa\nNumber:4111111111111111\nSecurity Code:123\nExpiration Date:June,2029\nNotes:card ${i}`,
          `NoteType:Bank Account\nLanguage:en-US\nBank Name:Bank ${i}\nAccount Number:${1e9 + i}\nRouting Number:021000021\nPin:1234\nNotes:`,
          `NoteType:Wi-Fi Password\nLanguage:en-US\nSSID:Net ${i}\nPassword:wifi-${i}\nConnection Type:WPA2\nNotes:`,
        ][(i / 10) % 3];
        return `http://sn,,,,${q(note)},Note ${i},Notes,0`;
      }),
    ].join("\n"),
  "1Password 7 all-fields (Mac)": () =>
    [
      '"Title","Type","Username","Password","URLs","Notes","Cardholder Name","Number","Verification Number","Expiry Date","Bank Name","Account Number","Tags"',
      ...Array.from({ length: N }, (_, i) => {
        const kind = i % 10 === 0 ? "Credit Card" : i % 10 === 1 ? "Bank Account" : "Login";
        const cells =
          kind === "Login"
            ? [
                `Site ${i}`,
                kind,
                `user${i}`,
                `pw-${i}`,
                `https://site${i}.example.com`,
                `note ${i}`,
                "",
                "",
                "",
                "",
                "",
                "",
                "web",
              ]
            : kind === "Credit Card"
              ? [
                  `Card ${i}`,
                  kind,
                  "",
                  "",
                  "",
                  "",
                  `Holder ${i}`,
                  "5555555555554444",
                  "737",
                  "03/2029",
                  "",
                  "",
                  "",
                ]
              : [
                  `Bank ${i}`,
                  kind,
                  "",
                  "",
                  "",
                  "",
                  "",
                  "",
                  "",
                  "",
                  `Bank ${i}`,
                  String(1e9 + i),
                  "",
                ];
        return cells.map(q).join(",");
      }),
    ].join("\n"),
};

const mb = (n) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
console.log(`node ${process.version}, ${N.toLocaleString("en")} rows per file, ${RUNS} runs each`);
for (const [label, make] of Object.entries(files)) {
  const text = make();
  const times = [];
  let held = 0;
  let items = 0;
  for (let r = 0; r < RUNS; r++) {
    globalThis.gc();
    const t0 = performance.now();
    let result = parseImport(text);
    times.push(performance.now() - t0);
    items = result.credentials.length + result.skipped.length;
    globalThis.gc();
    const withResult = process.memoryUsage().heapUsed;
    result = null;
    globalThis.gc();
    held = withResult - process.memoryUsage().heapUsed;
    if (items !== N) throw new Error(`${label}: ${items} items read of ${N} rows`);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  console.log(
    `${label}: ${mb(text.length)} of text, ${items.toLocaleString("en")} items, median ${Math.round(median)} ms (runs ${times.map(Math.round).join(", ")} ms), ${Math.round((N / median) * 1000).toLocaleString("en")} rows/s, result holds ${mb(held)}`,
  );
}
console.log(`peak resident memory of the process: ${mb(process.resourceUsage().maxRSS * 1024)}`);
