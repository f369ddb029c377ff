// Builds the web client into public/ (served by Workers static assets, wrangler.toml [assets]).
// Page scripts and the stylesheet get content-hashed names, so the service worker can serve them
// cache-first without ever serving a stale bundle; the HTML (network-first) names the current ones.
// The service worker keeps a fixed URL (/sw.js) and learns the asset list at build time.
import { build } from "esbuild";
import { createHash } from "node:crypto";
import {
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative } from "node:path";
import { ROOT } from "./lib/dev-identity.mjs";

const SRC = join(ROOT, "client", "src");
/** The client core shared with the extension (core/): two of the workers are its bundle entries. */
const CORE = join(ROOT, "core");
const STATIC = join(ROOT, "client", "static");
const OUT = join(ROOT, "public");
const PAGES = ["signin", "dashboard", "offline", "keys", "link"];

/**
 * The app shell's section paths, read from client/src/shell/sections.ts (one `path: "/x"` per
 * line): the shell page is written at each, so Workers assets serve it there, and the service
 * worker pre-caches each for offline navigation.
 */
function sectionPaths(source = readFileSync(join(SRC, "shell", "sections.ts"), "utf8")) {
  return [...source.matchAll(/\bpath:\s*"(\/[a-z0-9-]+)"/g)].map((m) => m[1]);
}

/**
 * kdbxweb (the KeePass reader) is a UMD bundle that requires Node's `crypto` at load and uses it
 * only where Web Crypto is missing: in a browser it gets an empty module in its place.
 */
const noNodeCrypto = {
  name: "no-node-crypto",
  setup(b) {
    b.onResolve({ filter: /^crypto$/ }, () => ({ path: "crypto", namespace: "empty-module" }));
    b.onLoad({ filter: /.*/, namespace: "empty-module" }, () => ({
      contents: "module.exports = {};",
      loader: "js",
    }));
  },
};

const started = Date.now();
rmSync(OUT, { recursive: true, force: true });
mkdirSync(join(OUT, "assets"), { recursive: true });

/**
 * A module Web Worker of its own, content-hashed like the pages; its URL is given to the page
 * bundles at build time: the vault page's entry reader (core/vault/entry-reader-worker.ts), the
 * sync engine's pull reader (core/sync/pull-worker.ts), the
 * health check (the estimator and its dictionaries inside), and the import page's KeePass reader
 * (kdbxweb and Argon2: core/importers/keepass-worker.ts).
 */
async function workerBundle(entry, names) {
  const out = await build({
    entryPoints: [join(...entry)],
    outdir: join(OUT, "assets"),
    entryNames: names,
    bundle: true,
    format: "esm",
    target: "es2022",
    minify: true,
    metafile: true,
    logLevel: "warning",
    plugins: [noNodeCrypto],
  });
  return `/${relative(OUT, join(ROOT, Object.keys(out.metafile.outputs)[0]))
    .split("\\")
    .join("/")}`;
}
const readerUrl = await workerBundle([CORE, "vault", "entry-reader-worker.ts"], "[name]-[hash]");
const pullWorkerUrl = await workerBundle([CORE, "sync", "pull-worker.ts"], "[name]-[hash]");
const healthWorkerUrl = await workerBundle([SRC, "health", "worker.ts"], "health-worker-[hash]");
const keepassWorkerUrl = await workerBundle(
  [CORE, "importers", "keepass-worker.ts"],
  "keepass-worker-[hash]",
);

const pages = await build({
  entryPoints: PAGES.map((p) => join(SRC, "pages", `${p}.ts`)),
  define: {
    __ENTRY_READER__: JSON.stringify(readerUrl),
    __PULL_WORKER__: JSON.stringify(pullWorkerUrl),
    __HEALTH_WORKER__: JSON.stringify(healthWorkerUrl),
    __KEEPASS_WORKER__: JSON.stringify(keepassWorkerUrl),
  },
  outdir: join(OUT, "assets"),
  entryNames: "[name]-[hash]",
  chunkNames: "chunk-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  target: "es2022",
  minify: true,
  // CLIENT_NAMES=1 keeps function names (a profile then reads; the code is otherwise as shipped).
  minifyIdentifiers: process.env.CLIENT_NAMES !== "1",
  sourcemap: false,
  metafile: true,
  logLevel: "warning",
  plugins: [noNodeCrypto],
});

/** Public URL of each page's entry script, by page name. */
const scripts = {};
for (const [file, meta] of Object.entries(pages.metafile.outputs)) {
  if (meta.entryPoint)
    scripts[basename(meta.entryPoint, ".ts")] =
      `/${relative(OUT, join(ROOT, file)).split("\\").join("/")}`;
}

/**
 * The vault page's modules, named in its HTML as module preloads: the shell's entry script imports
 * its chunks, which import theirs, and the vault section is imported once the shell runs, so
 * without the list the browser finds them one level at a time, a round trip per level, on the
 * way from "Open vault" to the first row. With it every one is asked for as the HTML is read.
 */
const outputs = pages.metafile.outputs;
const urlOf = (file) => `/${relative(OUT, join(ROOT, file)).split("\\").join("/")}`;
/** The bundles `file` imports statically, level after level. */
const closure = (file, seen) => {
  for (const i of outputs[file].imports) {
    if (i.kind !== "import-statement" || seen.has(i.path)) continue;
    seen.add(i.path);
    closure(i.path, seen);
  }
  return seen;
};
const entryFile = (name) => {
  const found = Object.keys(outputs).find((f) =>
    outputs[f].entryPoint?.split("\\").join("/").endsWith(name),
  );
  if (!found) throw new Error(`client build: no bundle for ${name}`);
  return found;
};
function vaultPreloads() {
  const shell = entryFile("client/src/pages/dashboard.ts");
  const section = entryFile("client/src/sections/vault/page.ts");
  const files = new Set([...closure(shell, new Set()), section, ...closure(section, new Set())]);
  files.delete(shell);
  return [...files].map((f) => `<link rel="modulepreload" href="${urlOf(f)}">`).join("\n  ");
}
/** Every bundle the sign-in page and the vault page (shell and vault section) load at start. */
function startModules() {
  const files = new Set();
  for (const name of [
    "client/src/pages/signin.ts",
    "client/src/pages/dashboard.ts",
    "client/src/sections/vault/page.ts",
  ]) {
    const file = entryFile(name);
    files.add(file);
    closure(file, files);
  }
  return [...files].map(urlOf);
}

const css = readFileSync(join(STATIC, "styles.css"));
const cssUrl = `/assets/styles-${createHash("sha256").update(css).digest("hex").slice(0, 8)}.css`;
writeFileSync(join(OUT, cssUrl), css);

/**
 * The built-in service registry's password rules (and which services offer TOTP, for the health
 * check), as one static file the vault's generator and the health page read
 * (the registry is pure data in src/kernel/registry, read here into one file so no page bundle
 * carries it).
 * Every entry form asks for the same file, so no request depends on entry data.
 */
const registry = await build({
  stdin: {
    contents:
      'export { BUILTIN_SERVICES } from "./src/kernel/registry/services"; export { DEFAULT_REQUIREMENTS } from "./src/kernel/registry/build"; export { TOTP_SERVICES } from "./src/kernel/registry/two-factor";',
    resolveDir: ROOT,
    loader: "ts",
  },
  bundle: true,
  format: "esm",
  platform: "neutral",
  write: false,
  logLevel: "warning",
});
const { BUILTIN_SERVICES, DEFAULT_REQUIREMENTS, TOTP_SERVICES } = await import(
  `data:text/javascript;base64,${Buffer.from(registry.outputFiles[0].text).toString("base64")}`
);
const rules = {
  default: DEFAULT_REQUIREMENTS,
  services: BUILTIN_SERVICES.filter((s) => s.password_requirements).map((s) => ({
    domain: s.domain,
    name: s.name,
    rules: s.password_requirements,
  })),
  // The health check's "missing 2FA": services that offer authenticator-app codes.
  totp: TOTP_SERVICES,
};
writeFileSync(join(OUT, "password-rules.json"), JSON.stringify(rules));

/** Assets each page needs to run offline (the service worker pre-caches them with the pages). */
/** The web app manifest and its icons (client/static; the PNGs made by scripts/make-icons.mjs). */
const APP_FILES = [
  "/manifest.webmanifest",
  "/icon.svg",
  "/icon-192.png",
  "/icon-512.png",
  "/icon-maskable-512.png",
];
const assets = [
  cssUrl,
  ...APP_FILES,
  "/password-rules.json",
  readerUrl,
  pullWorkerUrl,
  healthWorkerUrl,
  keepassWorkerUrl,
];
for (const file of Object.keys(outputs)) assets.push(urlOf(file));

/**
 * The large bundles no page needs to start (the health check's worker, the KeePass reader, the
 * strength estimator): the service worker's install leaves them out, so on a new browser they do
 * not compete with the first sign-in for the connection and the disk, and caches them once the
 * vault's shell has opened (sw.ts, PRECACHE_DEFERRED); until then each is cached as it is first
 * fetched. What the sign-in page and the vault page load at start is always installed.
 */
const DEFER_ABOVE = 128 * 1024;
const startUrls = new Set(startModules());
const deferred = assets.filter(
  (a) =>
    a.endsWith(".js") && !startUrls.has(a) && statSync(join(OUT, a.slice(1))).size > DEFER_ABOVE,
);

for (const name of readdirSync(STATIC)) {
  if (name.endsWith(".html")) {
    const html = readFileSync(join(STATIC, name), "utf8")
      .replaceAll("/assets/styles.css", cssUrl)
      .replace(/\/assets\/([a-z]+)\.js/g, (m, page) => {
        if (!scripts[page]) throw new Error(`${name}: no bundle for ${m}`);
        return scripts[page];
      });
    writeFileSync(join(OUT, name), html);
    // The shell (dashboard.html) also answers at every section path; the vault's page names the
    // vault section's modules to preload (where a sign-in lands).
    const preloads = vaultPreloads();
    const withPreloads = (h) =>
      h.replace(/(\n\s*)<script type="module"/, (m, space) => `${space}${preloads}${m}`);
    if (name === "dashboard.html")
      for (const path of sectionPaths())
        writeFileSync(
          join(OUT, `${path.slice(1)}.html`),
          path === "/vault" ? withPreloads(html) : html,
        );
  } else if (name !== "styles.css") {
    copyFileSync(join(STATIC, name), join(OUT, name));
  }
}

// Unhashed files (the manifest, the icons) count by content: a new one must install a new worker.
const appFiles = createHash("sha256");
for (const file of APP_FILES) appFiles.update(readFileSync(join(STATIC, file.slice(1))));
const buildId = createHash("sha256")
  .update(JSON.stringify([assets, sectionPaths(), appFiles.digest("hex")]))
  .digest("hex")
  .slice(0, 12);
await build({
  entryPoints: [join(SRC, "service-worker", "sw.ts")],
  outfile: join(OUT, "sw.js"),
  bundle: true,
  format: "iife",
  target: "es2022",
  minify: true,
  define: {
    __PRECACHE_ASSETS__: JSON.stringify(assets.filter((a) => !deferred.includes(a)).sort()),
    __DEFERRED_ASSETS__: JSON.stringify(deferred.sort()),
    __PAGES__: JSON.stringify(["/dashboard", "/offline", ...sectionPaths()]),
    __BUILD_ID__: JSON.stringify(buildId),
  },
  logLevel: "warning",
});

// The browser extension, built beside the app and served at /extension.zip: Settings' "Browser
// extension" offers it with the steps to load it unpacked. It is not pre-cached (a download, not a
// page's asset). EXTENSION_APP_ORIGIN names the app it opens set to, as for build-extension.mjs.
const extensionOut = join(tmpdir(), `vault-extension-${process.pid}`, "extension");
execFileSync(process.execPath, [join(ROOT, "scripts", "build-extension.mjs")], {
  env: { ...process.env, EXTENSION_OUT_DIR: extensionOut },
  stdio: "ignore",
});
copyFileSync(`${extensionOut}.zip`, join(OUT, "extension.zip"));
rmSync(dirname(extensionOut), { recursive: true, force: true });

console.log(
  `client built into public/ (${assets.length} assets, ${deferred.length} cached after the vault opens, build ${buildId}) in ${Date.now() - started} ms`,
);
