import puppeteer from "@cloudflare/puppeteer";
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { guardPageRequests, requestGuard } from "../../src/lib/page-guard";
import { site } from "../support/session-shares";

// The suite opens private addresses (OUTBOUND_ALLOW_PRIVATE) for its local sites; these cases use
// the guard as a deployment has it, with a resolver that answers what each case needs.
const NAMES: Record<string, string[]> = {
  "public.example": ["93.184.216.34"],
  "rebind.example": ["10.0.0.7"],
};
const strict = { allowPrivate: false, resolve: async (host: string) => NAMES[host] ?? [] };

describe("automation pages: every request through the outbound guard ( item 9)", () => {
  it("decides by address: public hosts load, private ones and names resolving to them do not", async () => {
    const decide = requestGuard(strict);
    expect(await decide("https://public.example/app.js")).toBe("continue");
    expect(await decide("data:image/png;base64,iVBORw0KGgo=")).toBe("continue");
    expect(await decide("about:blank")).toBe("continue");
    for (const url of [
      "http://127.0.0.1:8080/admin",
      "http://169.254.169.254/latest/meta-data/",
      "http://[::1]/",
      "http://2130706433/",
      "http://10.1.2.3/",
      "https://rebind.example/x",
      "https://unknown.example/x",
      "ftp://public.example/file",
      "https://user:pw@public.example/",
      "not a url",
    ]) {
      expect(await decide(url), url).toBe("abort");
    }
  });

  it("asks the resolver once per host for a page's many requests", async () => {
    let lookups = 0;
    const decide = requestGuard({
      allowPrivate: false,
      resolve: async (h) => (lookups++, NAMES[h] ?? []),
    });
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => decide(`https://public.example/img/${i}.png`)),
    );
    expect(lookups).toBe(1);
  });

  it("in Chromium: a private image and frame are blocked before they leave the browser, inline data still loads", async () => {
    const browser = await puppeteer.launch(env.BROWSER);
    try {
      const page = await browser.newPage();
      await guardPageRequests(page, strict);
      const failed: { url: string; reason: string }[] = [];
      const done: string[] = [];
      page.on("requestfailed", (r) =>
        failed.push({ url: r.url(), reason: r.failure()?.errorText ?? "" }),
      );
      page.on("requestfinished", (r) => done.push(r.url().slice(0, 10)));
      const pixel = "data:image/gif;base64,R0lGODlhAQABAAAAACw=";
      const html = `<img src="${site()}/login"><iframe src="http://169.254.169.254/latest/meta-data/"></iframe><img src="${pixel}">`;
      await page.goto(`data:text/html,${encodeURIComponent(html)}`, { waitUntil: "load" });
      await new Promise((r) => setTimeout(r, 300));
      const blocked = failed.filter((f) => /BLOCKED_BY_CLIENT/.test(f.reason)).map((f) => f.url);
      expect(blocked).toEqual(
        expect.arrayContaining([`${site()}/login`, "http://169.254.169.254/latest/meta-data/"]),
      );
      expect(done).toContain("data:image");
    } finally {
      await browser.close();
    }
  }, 30_000);
});
