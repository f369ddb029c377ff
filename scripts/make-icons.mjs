// Renders the app's PNG icons (the web app manifest's) from client/static/icon.svg in Chromium:
// 192 and 512 pixels, and a maskable 512 whose artwork keeps inside the 80 % safe zone (the
// launcher may cut the rest to a circle or a squircle). The PNGs are committed; run this again
// after changing the SVG: node scripts/make-icons.mjs
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { ROOT } from "./lib/dev-identity.mjs";

const STATIC = join(ROOT, "client", "static");
const svg = readFileSync(join(STATIC, "icon.svg"), "utf8");
const src = `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
});
try {
  const page = await browser.newPage({ deviceScaleFactor: 1 });
  for (const [name, size, maskable] of [
    ["icon-192.png", 192, false],
    ["icon-512.png", 512, false],
    ["icon-maskable-512.png", 512, true],
  ]) {
    await page.setViewportSize({ width: size, height: size });
    // Maskable: the icon's own blue fills the square, the lock drawn at 70 % in the middle.
    const inner = maskable ? Math.round(size * 0.7) : size;
    await page.setContent(`<body style="margin:0;background:${maskable ? "#1d4ed8" : "transparent"};display:grid;place-items:center;height:${size}px">
      <img src="${src}" width="${inner}" height="${inner}"></body>`);
    await page.locator("img").evaluate((img) => img.decode());
    await page.screenshot({ path: join(STATIC, name), omitBackground: !maskable });
    console.log(`${name}: ${size}x${size}${maskable ? " (maskable)" : ""}`);
  }
} finally {
  await browser.close();
}
