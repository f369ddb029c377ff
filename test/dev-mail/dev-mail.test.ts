import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/app";
import { dbFor } from "../../src/db/client";
import { outboundEmails } from "../../src/db/schema";
import { TestUser } from "../support/auth";
import { invite, inviteTokenFor } from "../support/emergency";
import { SELF } from "../support/worker";
import { productionVars } from "../support/production-env";

/**
 * The page as `npm start` and the browser suite serve it: the test worker's bindings with a
 * loopback APP_ORIGIN (the worker suite's own APP_ORIGIN, https://app.test, is not one).
 */
const LOCAL = { ...env, APP_ORIGIN: "http://localhost:8787" };
const page = () => buildApp().request("http://localhost:8787/dev/mail", {}, LOCAL);

describe("development mail page", () => {
  it("lists the mail the outbox holds, newest first, its links as anchors", async () => {
    const owner = await TestUser.create();
    const friend = await TestUser.create();
    await invite(owner, friend);
    const token = await inviteTokenFor(friend.email);
    const res = await page();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain("unsafe-inline");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("cache-control")).toBe("no-store");
    const html = await res.text();
    const at = html.indexOf(`<dd class="to">${friend.email.toLowerCase()}</dd>`);
    expect(at).toBeGreaterThan(0);
    const link = `https://app.test/emergency/${token}`;
    expect(html).toContain(`<a href="${link}" rel="noreferrer noopener">${link}</a>`);

    // A later mail is listed above it.
    const later = await TestUser.create();
    await invite(owner, later);
    const again = await (await page()).text();
    const laterAt = again.indexOf(`<dd class="to">${later.email.toLowerCase()}</dd>`);
    expect(laterAt).toBeGreaterThan(0);
    expect(laterAt).toBeLessThan(
      again.indexOf(`<dd class="to">${friend.email.toLowerCase()}</dd>`),
    );
  });

  it("escapes what a mail carries: markup in a subject or body stays text, only http(s) links become anchors", async () => {
    const userId = crypto.randomUUID();
    const marker = crypto.randomUUID();
    await dbFor(env, userId)
      .insert(outboundEmails)
      .values({
        id: crypto.randomUUID(),
        toAddress: `"><script>alert(1)</script>@example.test`,
        subject: `<img src=x onerror=alert(1)> ${marker}`,
        textBody: `Hello <b>there</b> & "friends"\njavascript:alert(1)\nOpen https://app.test/x?a=1&b="2"<script> now.\nRelative:\n\n/emergency/tok_en-1.\nNot a link: and/or //evil.test`,
        kind: "test.escape",
        createdAt: new Date().toISOString(),
      });
    const html = await (await page()).text();
    const start = html.lastIndexOf("<article", html.indexOf(marker));
    const article = html.slice(start, html.indexOf("</article>", start));
    expect(article).not.toMatch(/<(script|img|b)\b/);
    expect(article).toContain(`&lt;img src=x onerror=alert(1)&gt; ${marker}`);
    expect(article).toContain("&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;@example.test");
    expect(article).toContain("Hello &lt;b&gt;there&lt;/b&gt; &amp; &quot;friends&quot;");
    expect(article).not.toContain('href="javascript');
    // The link ends where the quote begins; the rest stays text.
    expect(article).toContain(
      `<a href="https://app.test/x?a=1&amp;b=" rel="noreferrer noopener">https://app.test/x?a=1&amp;b=</a>&quot;2&quot;&lt;script&gt; now.`,
    );
    // An app path mailed without APP_ORIGIN resolves against this page's own origin; a
    // protocol-relative or mid-word path does not become a link.
    expect(article).toContain(
      `\n<a href="/emergency/tok_en-1" rel="noreferrer noopener">/emergency/tok_en-1</a>.\nNot a link: and/or //evil.test`,
    );
  });

  it("answers 404, as an unknown path does, outside development or with a real mail transport", async () => {
    const production = productionVars;
    const developmentSending = { ...production, ENVIRONMENT: "development" };
    for (const vars of [production, developmentSending]) {
      const res = await buildApp().request("https://vault.test/dev/mail", {}, vars);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ code: "NOT_FOUND", status: 404 });
    }
    const unknown = await buildApp().request("https://vault.test/dev/no-such-page", {}, production);
    expect(unknown.status).toBe(404);
  });

  it("answers 404 in development with the outbox unless APP_ORIGIN is on this machine (a deploy without --env production)", async () => {
    const owner = await TestUser.create();
    await invite(owner, await TestUser.create());
    // The suite's worker: development, the outbox, APP_ORIGIN https://app.test.
    const deployed = await SELF.fetch("https://vault.test/dev/mail");
    expect(deployed.status).toBe(404);
    expect(await deployed.json()).toMatchObject({ code: "NOT_FOUND", status: 404 });
    const notLoopback = [
      undefined,
      "https://vault.example.org",
      "http://localhost.evil.test",
      "http://127.0.0.1.evil.test",
      "http://[::2]",
      "ftp://127.0.0.1",
      "not an origin",
    ];
    for (const APP_ORIGIN of notLoopback) {
      const res = await buildApp().request(
        "https://vault.test/dev/mail",
        {},
        { ...env, APP_ORIGIN },
      );
      expect(res.status, String(APP_ORIGIN)).toBe(404);
      expect(await res.text()).not.toContain("emergency");
    }
    for (const APP_ORIGIN of [
      "http://localhost:8787",
      "http://127.0.0.1:51234",
      "http://127.1",
      "https://[::1]:8443",
    ]) {
      const res = await buildApp().request(
        "https://vault.test/dev/mail",
        {},
        { ...env, APP_ORIGIN },
      );
      expect(res.status, APP_ORIGIN).toBe(200);
    }
  });
});
