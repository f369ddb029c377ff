import puppeteer, { type Browser, type Page } from "@cloudflare/puppeteer";
import { env } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardPageRequests } from "../../src/lib/page-guard";
import { site } from "../support/session-shares";

// The automation browsers (resets, session shares) keep pages away from private addresses. Request
// interception sees a page's frames and subresources; these are the channels it does not see. Each
// case is a hostile page aiming at a loopback site (the suite's login site, which counts what
// reaches /canary/<id>), under the guard as a deployment has it.
const strict = { allowPrivate: false, resolve: async () => [] as string[] };
const hits = async (id: string) =>
  ((await (await fetch(`${site()}/canary-hits?id=${id}`)).json()) as { hits: number }).hits;
const canary = () => {
  const id = crypto.randomUUID();
  return {
    id,
    http: `${site()}/canary/${id}`,
    ws: `${site().replace(/^http/, "ws")}/canary/${id}`,
  };
};
const settle = () => new Promise((r) => setTimeout(r, 1500));

let browser: Browser;
let page: Page;

async function hostile(script: string, body = ""): Promise<unknown> {
  const html = `<!doctype html><body>${body}<script>window.result = (() => { try { return ${script}; } catch (e) { return "refused: " + e.name; } })();</script></body>`;
  await page.goto(`data:text/html,${encodeURIComponent(html)}`, { waitUntil: "load" });
  return page.evaluate(() => (globalThis as unknown as { result: unknown }).result);
}

describe("automation browsers: channels request interception does not see", () => {
  beforeAll(async () => {
    browser = await puppeteer.launch(env.BROWSER);
    page = await browser.newPage();
    await guardPageRequests(page, strict);
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
  });

  it("the canary counts what reaches it (control: a request from outside the browser)", async () => {
    const c = canary();
    await fetch(c.http);
    expect(await hits(c.id)).toBe(1);
  });

  it("a WebSocket to a loopback site is refused", async () => {
    const c = canary();
    expect(await hostile(`String(new WebSocket(${JSON.stringify(c.ws)}))`)).toBe(
      "refused: SecurityError",
    );
    await settle();
    expect(await hits(c.id)).toBe(0);
  });

  it("a dedicated worker and a shared worker are refused", async () => {
    const c = canary();
    const src = `URL.createObjectURL(new Blob(["fetch(" + ${JSON.stringify(JSON.stringify(c.http))} + ")"], { type: "text/javascript" }))`;
    expect(await hostile(`String(new Worker(${src}))`)).toBe("refused: SecurityError");
    expect(await hostile(`String(new SharedWorker(${src}))`)).toBe("refused: SecurityError");
    await settle();
    expect(await hits(c.id)).toBe(0);
  });

  it("a fresh realm (an iframe's window) gets no WebSocket or Worker either", async () => {
    const c = canary();
    const out = await hostile(
      `(() => { const f = document.getElementById("f"); const W = f.contentWindow; const r = []; for (const make of [() => new W.WebSocket(${JSON.stringify(c.ws)}), () => new W.Worker("data:text/javascript,fetch('${c.http}')")]) { try { make(); r.push("opened"); } catch (e) { r.push(e.name); } } return r.join(","); })()`,
      `<iframe id="f" srcdoc="<p>x</p>"></iframe>`,
    );
    await settle();
    expect(await hits(c.id)).toBe(0);
    expect(out).not.toContain("opened");
  });

  it("window.open gives nothing and opens no page", async () => {
    const c = canary();
    const before = (await browser.pages()).length;
    expect(await hostile(`String(window.open(${JSON.stringify(c.http)}))`)).toBe("null");
    await settle();
    expect(await hits(c.id)).toBe(0);
    expect((await browser.pages()).length).toBe(before);
  });

  it("a target=_blank link a person clicks opens no page that reaches the site", async () => {
    const c = canary();
    await hostile(`"ready"`, `<a id="pop" href="${c.http}" target="_blank" rel="opener">open</a>`);
    const before = (await browser.pages()).length;
    await page.click("#pop");
    await settle();
    expect(await hits(c.id)).toBe(0);
    expect((await browser.pages()).length).toBe(before);
  });

  it("WebRTC (which picks its own addresses) and service workers are refused", async () => {
    expect(await hostile(`String(new RTCPeerConnection())`)).toBe("refused: SecurityError");
    expect(await hostile(`navigator.serviceWorker ? "present" : "absent"`)).toMatch(
      /present|absent/,
    );
  });
});
