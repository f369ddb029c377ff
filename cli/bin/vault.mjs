#!/usr/bin/env node
// `vault` from a checkout (package.json "bin"; docs/cli.md): bundles cli/ with the client core it
// shares with the web app into one ES module with esbuild (the repository's bundler; core/ imports
// without file extensions, which Node's own TypeScript support does not resolve), rebuilt only when
// a source is newer than the bundle, then runs it. A run against a fresh bundle costs one stat per
// source file and no build.
import { existsSync, mkdirSync, readdirSync, renameSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const OUT = join(ROOT, "node_modules", ".cache", "vault-cli", "vault.mjs");
const SOURCES = ["cli", "core", join("src", "kernel")].map((d) => join(ROOT, d));

function newest(dir) {
  let latest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) latest = Math.max(latest, newest(p));
    else if (e.name.endsWith(".ts")) latest = Math.max(latest, statSync(p).mtimeMs);
  }
  return latest;
}

function stale() {
  if (!existsSync(OUT)) return true;
  const built = statSync(OUT).mtimeMs;
  return SOURCES.some((d) => newest(d) > built);
}

if (stale()) {
  const { build } = await import("esbuild");
  mkdirSync(dirname(OUT), { recursive: true });
  // Built beside and renamed over: two commands started at once never run half a bundle.
  const tmp = `${OUT}.${process.pid}.tmp.mjs`;
  await build({
    entryPoints: [join(ROOT, "cli", "index.ts")],
    outfile: tmp,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    define: { __PULL_WORKER__: "undefined" },
    logLevel: "warning",
  });
  renameSync(tmp, OUT);
}
await import(pathToFileURL(OUT).href);
