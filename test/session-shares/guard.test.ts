import puppeteer from "@cloudflare/puppeteer";
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { PASSWORD_GUARD, watermarkScript } from "../../src/domains/session-shares/browser";
import { site } from "../support/session-shares";

describe("the shared tab's password guard, in Chromium", () => {
  it("a 'show password' toggle cannot unmask the field, copying it is cancelled, and the watermark overlays the page", async () => {
    const browser = await puppeteer.launch(env.BROWSER);
    try {
      const page = await browser.newPage();
      await page.evaluateOnNewDocument(PASSWORD_GUARD);
      await page.goto(`${site()}/login`, { waitUntil: "load" });
      await page.type("#pw", "typed-secret");
      await page.click("#show");
      await new Promise((r) => setTimeout(r, 100));
      expect(await page.$eval("#pw", (el) => (el as unknown as { type: string }).type)).toBe(
        "password",
      );
      const copyCancelled = await page.evaluate(`(() => {
        const pw = document.getElementById("pw");
        pw.focus();
        const ev = new ClipboardEvent("copy", { bubbles: true, cancelable: true });
        pw.dispatchEvent(ev);
        return ev.defaultPrevented;
      })()`);
      expect(copyCancelled).toBe(true);
      // A password field added later by the site is guarded too.
      const late = await page.evaluate(`(async () => {
        const i = document.createElement("input");
        i.type = "password";
        document.body.appendChild(i);
        await new Promise((r) => setTimeout(r, 20));
        i.type = "text";
        await new Promise((r) => setTimeout(r, 20));
        return i.type;
      })()`);
      expect(late).toBe("password");

      await page.evaluate(watermarkScript(true, "Shared by owner@example.test"));
      expect(
        await page.$eval(
          "#__vault_session_watermark",
          (el) => (el as unknown as { textContent: string }).textContent,
        ),
      ).toContain("Shared by owner@example.test");
      await page.evaluate(watermarkScript(false, "x"));
      expect(await page.$("#__vault_session_watermark")).toBeNull();
    } finally {
      await browser.close();
    }
  });
});
