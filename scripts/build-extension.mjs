// Builds the browser extension (extension/) into dist/extension/, a folder Chromium loads unpacked,
// and dist/extension.zip for the store. It bundles the client core the web app also uses (core/): one
// crypto, sync engine and local store for both. EXTENSION_APP_ORIGIN names the web app the
// extension reads its session from (the popup can change it).
import { build } from "esbuild";
import {
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join, relative } from "node:path";
import { deflateRawSync } from "node:zlib";
import { ROOT } from "./lib/dev-identity.mjs";
import { extensionOrigin } from "./lib/extension-id.mjs";

const SRC = join(ROOT, "extension", "src");
const STATIC = join(ROOT, "extension", "static");
// EXTENSION_OUT_DIR moves both (the zip beside the folder): the browser suite's files that run at
// once each build their own, with their own server's origin built in (client/test/support/extension.ts).
const OUT = process.env.EXTENSION_OUT_DIR ?? join(ROOT, "dist", "extension");
const ZIP = `${OUT}.zip`;
const APP_ORIGIN = process.env.EXTENSION_APP_ORIGIN ?? "http://localhost:8787";

const started = Date.now();
rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });

await build({
  entryPoints: [
    "background",
    "offscreen",
    "content",
    "popup",
    "menu",
    "passkey-page",
    "passkey-content",
  ].map((n) => join(SRC, `${n}.ts`)),
  outdir: OUT,
  bundle: true,
  // Content scripts and the service worker load as classic scripts.
  format: "iife",
  target: "chrome116",
  minify: true,
  // The sync engine reads a pull in a Worker of its own (core/sync/pull-worker.ts), built below.
  define: {
    __APP_ORIGIN__: JSON.stringify(APP_ORIGIN),
    __PULL_WORKER__: JSON.stringify("/pull-worker.js"),
  },
  logLevel: "warning",
});
// The offscreen vault starts it as a module worker from the extension's own origin (MV3's default
// policy allows 'self' scripts); a first sync's parse and writes then leave the vault document free
// to answer fill menus.
await build({
  entryPoints: [join(ROOT, "core", "sync", "pull-worker.ts")],
  outdir: OUT,
  bundle: true,
  format: "esm",
  target: "chrome116",
  minify: true,
  logLevel: "warning",
});
for (const name of readdirSync(STATIC)) copyFileSync(join(STATIC, name), join(OUT, name));

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (buf) => {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};

/** A zip (PKWARE APPNOTE 6.3: local headers, deflated data, central directory) of the folder. */
function zip(dir) {
  const files = [];
  const walk = (d) => {
    for (const n of readdirSync(d).sort())
      statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : files.push(join(d, n));
  };
  walk(dir);
  const locals = [];
  const central = [];
  let offset = 0;
  for (const file of files) {
    const name = Buffer.from(relative(dir, file).split("\\").join("/"));
    const raw = readFileSync(file);
    const data = deflateRawSync(raw);
    const head = Buffer.alloc(30);
    head.writeUInt32LE(0x04034b50, 0);
    head.writeUInt16LE(20, 4);
    head.writeUInt16LE(8, 8);
    head.writeUInt16LE(0x21, 12); // 1980-01-01: a reproducible archive
    head.writeUInt32LE(crc32(raw), 14);
    head.writeUInt32LE(data.length, 18);
    head.writeUInt32LE(raw.length, 22);
    head.writeUInt16LE(name.length, 26);
    const dirEntry = Buffer.alloc(46);
    dirEntry.writeUInt32LE(0x02014b50, 0);
    dirEntry.writeUInt16LE(20, 4);
    dirEntry.writeUInt16LE(20, 6);
    head.copy(dirEntry, 8, 6, 28);
    dirEntry.writeUInt32LE(offset, 42);
    locals.push(head, name, data);
    central.push(dirEntry, name);
    offset += head.length + name.length + data.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}
writeFileSync(ZIP, zip(OUT));

console.log(
  `extension built into ${relative(ROOT, OUT)}/ and ${relative(ROOT, ZIP)} (origin ${extensionOrigin()}, app ${APP_ORIGIN}) in ${Date.now() - started} ms`,
);
