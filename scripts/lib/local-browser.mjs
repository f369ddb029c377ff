// Puts Debian's Chromium where miniflare looks for its browser, for the version it expects, so the
// local Browser Rendering binding launches a real browser without downloading one.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./dev-identity.mjs";

function findMiniflares(dir, depth = 0, out = []) {
  if (depth > 6 || !existsSync(dir)) return out;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const path = join(dir, entry.name);
    if (entry.name === "miniflare") out.push(path);
    else if (
      entry.name === "node_modules" ||
      entry.name.startsWith("@") ||
      dir.endsWith("node_modules")
    )
      findMiniflares(path, depth + 1, out);
  }
  return out;
}

const versions = new Set();
for (const dir of findMiniflares(join(ROOT, "node_modules"))) {
  const file = join(dir, "dist", "src", "index.js");
  if (!existsSync(file)) continue;
  const src = readFileSync(file, "utf8");
  for (const m of src.matchAll(/(?:BROWSER_VERSION\s*=\s*|browserVersion:\s*)"([\d.]+)"/g))
    versions.add(m[1]);
}
const cache = join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), ".wrangler", "chrome");
for (const v of versions) {
  const dir = join(cache, `linux-${v}`, "chrome-linux64");
  const bin = join(dir, "chrome");
  mkdirSync(dir, { recursive: true });
  writeFileSync(bin, '#!/bin/sh\nexec /usr/bin/chromium --no-sandbox "$@"\n');
  chmodSync(bin, 0o755);
}
console.log(
  `local browser: Debian Chromium linked for miniflare ${[...versions].join(", ") || "(none found)"}`,
);
