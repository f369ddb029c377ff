import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInPerson } from "./support/account";
import { CHROMIUM, dashboardReady, entryNames, launch, type Browser } from "./support/browser";
import { base } from "./support/journey";

// Installable as an app: a web app manifest linked from every page, icons that load (PNG 192 and
// 512, and a maskable one), Chromium's own installability check, and an offline start.
let browser: Browser;
let person: Awaited<ReturnType<typeof signedInPerson>>;

type Manifest = {
  name: string;
  short_name: string;
  start_url: string;
  scope: string;
  display: string;
  icons: { src: string; sizes: string; type: string; purpose?: string }[];
};

beforeAll(async () => {
  browser = await launch();
  person = await signedInPerson(browser, "install", undefined, [
    {
      name: "Installed",
      website: "installed.example",
      username: "ivy",
      password: "pw-installed",
    },
  ]);
});

afterAll(async () => {
  await browser?.close();
});

/** A PNG's width and height, from its IHDR chunk (RFC 2083). */
function pngSize(buf: Buffer) {
  expect(buf.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

describe("the web app manifest", () => {
  it("is served, says how to start the app, and each icon loads at its stated size", async () => {
    const res = await person.page.request.get(`${base()}/manifest.webmanifest`);
    expect(res.status()).toBe(200);
    expect(res.headers()["content-type"]).toMatch(/^application\/manifest\+json/);
    const manifest = (await res.json()) as Manifest;
    expect(manifest).toMatchObject({
      name: "Credential vault",
      start_url: "/vault",
      scope: "/",
      display: "standalone",
    });
    const png = manifest.icons.filter((i) => i.type === "image/png");
    expect(png.map((i) => `${i.sizes}${i.purpose ? ` ${i.purpose}` : ""}`).sort()).toEqual([
      "192x192",
      "512x512",
      "512x512 maskable",
    ]);
    for (const icon of png) {
      const img = await person.page.request.get(`${base()}${icon.src}`);
      expect(img.status()).toBe(200);
      expect(img.headers()["content-type"]).toBe("image/png");
      const [w, h] = icon.sizes.split("x").map(Number);
      expect(pngSize(await img.body())).toEqual({ width: w, height: h });
    }
  });

  it("is linked from every page and read by Chromium without errors", async () => {
    const { page } = person;
    for (const path of ["/vault", "/settings", "/keys", "/offline"]) {
      await page.goto(path);
      expect(
        await page
          .locator('link[rel="manifest"]')
          .evaluate((l: HTMLLinkElement) => new URL(l.href).pathname),
      ).toBe("/manifest.webmanifest");
    }
    const signedOut = await browser.newPage({ baseURL: base() });
    await signedOut.goto("/");
    expect(await signedOut.locator('link[rel="manifest"]').getAttribute("href")).toBe(
      "/manifest.webmanifest",
    );
    await signedOut.close();

    await page.goto("/vault");
    await dashboardReady(page);
    const cdp = await page.context().newCDPSession(page);
    const app = (await cdp.send("Page.getAppManifest")) as {
      url: string;
      errors: { message: string }[];
    };
    expect(new URL(app.url).pathname).toBe("/manifest.webmanifest");
    expect(app.errors).toEqual([]);
    await cdp.detach();
  });

  it("is installable by Chromium's own check, in an ordinary (not incognito) profile", async () => {
    // Test contexts are incognito, where Chromium never offers to install: a profile on disk is not.
    const profile = mkdtempSync(join(tmpdir(), "install-profile-"));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      args: ["--no-sandbox", "--disable-dev-shm-usage"],
      baseURL: base(),
    });
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      await page.goto("/");
      await page.evaluate(() => navigator.serviceWorker.ready);
      const cdp = await context.newCDPSession(page);
      const { installabilityErrors } = (await cdp.send("Page.getInstallabilityErrors")) as {
        installabilityErrors: { errorId: string }[];
      };
      expect(installabilityErrors).toEqual([]);
    } finally {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    }
  });

  it("starts offline: the start page, the manifest and the icons come from the service worker's cache", async () => {
    const { page, context } = person;
    await context.setOffline(true);
    try {
      await page.goto("/vault");
      await dashboardReady(page);
      await expect.poll(() => entryNames(page)).toContain("Installed");
      const fetched = await page.evaluate(async () =>
        Promise.all(
          ["/manifest.webmanifest", "/icon-192.png", "/icon-512.png", "/icon-maskable-512.png"].map(
            async (u) => `${u} ${(await fetch(u)).status}`,
          ),
        ),
      );
      expect(fetched).toEqual([
        "/manifest.webmanifest 200",
        "/icon-192.png 200",
        "/icon-512.png 200",
        "/icon-maskable-512.png 200",
      ]);
    } finally {
      await context.setOffline(false);
    }
  });
});
