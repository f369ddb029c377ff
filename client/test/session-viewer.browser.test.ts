import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { server } from "./support/server";
import { startLoginSite } from "../../test/support/login-site";
import { apiAs } from "./support/api";
import { launch, newUser, type Browser, type BrowserContext, type Page } from "./support/browser";

// The session-share viewer page (/s/<token>, /s/preview/<id>) is worker-served HTML whose inline
// script signs in with the cookie, takes a ticket, opens the WebSocket, draws frames and sends
// input. Here that script runs in a real Chromium against wrangler dev, whose own Browser
// Rendering session logs in to a local site.
const base = server().baseUrl;
let site: Awaited<ReturnType<typeof startLoginSite>>;
let browser: Browser;
let owner: Awaited<ReturnType<typeof newUser>>;
let ownerApi: Awaited<ReturnType<typeof apiAs>>;
let viewer: Awaited<ReturnType<typeof newUser>>;
let viewerApi: Awaited<ReturnType<typeof apiAs>>;

const b64 = (n: number) => randomBytes(n).toString("base64");
const hex = (n = 64) => randomBytes(n / 2).toString("hex");

async function siteAccount() {
  const account = { username: `user-${hex(8)}`, password: `Pw!${hex(32)}` };
  const res = await fetch(`${site.url}/register`, {
    method: "POST",
    body: JSON.stringify(account),
  });
  if (res.status !== 204) throw new Error(`register: ${res.status}`);
  return account;
}

const clicks = async (username: string) =>
  ((await (await fetch(`${site.url}/stats?u=${username}`)).json()) as { clicks: number }).clicks;

/** A share of a fresh site account, waited on until the room has logged in. */
async function activeShare(accessType: "full" | "view_only") {
  const account = await siteAccount();
  const entry = await ownerApi.post("/api/passwords", {
    name: "Test site",
    website: "127.0.0.1",
    url: `${site.url}/login`,
    wrapped_item_key: b64(40),
    encrypted_data: b64(120),
    name_hash: hex(),
    username_hash: hex(),
    domain_hash: hex(),
    search_tokens: [hex(16)],
  });
  expect(entry.status).toBe(201);
  const created = await ownerApi.post("/api/session-shares", {
    accountId: entry.body.data.id,
    decryptedUsername: account.username,
    decryptedPassword: account.password,
    accessType,
  });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  await expect
    .poll(async () => (await ownerApi.get(`/api/session-shares/${id}`)).body.session.status, {
      timeout: 30_000,
    })
    .toBe("active");
  return { id, shareUrl: created.body.shareUrl as string, account };
}

type Watched = {
  page: Page;
  context: BrowserContext;
  traffic: string[];
  sent: string[];
  fingerprints: string[];
  /** Resolves once the page has sent a WebSocket frame that matches, as Playwright reports it. */
  sentFrame(match: (payload: string) => boolean): Promise<void>;
};

/** A signed-in tab that records everything that crosses the network: bodies, headers and WebSocket frames. */
async function signedInPage(token: string): Promise<Watched> {
  const context = await browser.newContext({
    baseURL: base,
    viewport: { width: 1280, height: 900 },
  });
  await context.addCookies([{ name: "access_token", value: token, url: base }]);
  const page = await context.newPage();
  const traffic: string[] = [];
  const sent: string[] = [];
  const fingerprints: string[] = [];
  page.on("pageerror", (e) => traffic.push(`pageerror ${e.message}`));
  page.on("request", (r) => {
    traffic.push(`${r.method()} ${r.url()} ${JSON.stringify(r.headers())} ${r.postData() ?? ""}`);
    const fp = r.headers()["x-device-fingerprint"];
    if (fp) fingerprints.push(fp);
  });
  page.on("response", async (r) => {
    traffic.push(JSON.stringify(await r.allHeaders()));
    if (r.status() !== 101) traffic.push(await r.text().catch(() => ""));
  });
  const waiters = new Set<{ match: (payload: string) => boolean; done: () => void }>();
  page.on("websocket", (ws) => {
    ws.on("framereceived", (f) => traffic.push(String(f.payload)));
    ws.on("framesent", (f) => {
      const payload = String(f.payload);
      traffic.push(payload);
      sent.push(payload);
      for (const w of waiters) if (w.match(payload)) w.done();
    });
  });
  // Playwright learns of a sent frame from a DevTools event that can arrive after the frame has
  // already gone through the worker to the site, so a test that checks `sent` right after the
  // site saw the effect first waits here for the page's own report of the frame.
  const sentFrame = (match: (payload: string) => boolean) =>
    sent.some(match)
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          const w = { match, done: () => (waiters.delete(w), resolve()) };
          waiters.add(w);
        });
  return { page, context, traffic, sent, fingerprints, sentFrame };
}

const REFUSED = "Not allowed from an unregistered device";

/** Opens a viewer page; a first visit from this browser registers the fingerprint the page sent. */
async function openRegistered(w: Watched, api: Awaited<ReturnType<typeof apiAs>>, path: string) {
  await w.page.goto(path);
  await expect.poll(() => w.page.locator("#status").innerText()).not.toBe("connecting…");
  if ((await w.page.locator("#status").innerText()) !== REFUSED) return;
  expect((await api.post("/api/devices", { fingerprint: w.fingerprints[0] })).status).toBe(201);
  await w.page.reload();
}

/** The drawn frame: a decoded JPEG in the page's <img>, and where a page pixel lands on screen. */
async function frameDrawn(page: Page) {
  await expect
    .poll(
      () =>
        page
          .locator("#screen")
          .evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : 0)),
      { timeout: 20_000 },
    )
    .toBeGreaterThan(0);
  expect(await page.locator("#screen").getAttribute("src")).toMatch(
    /^data:image\/jpeg;base64,\/9j\//,
  );
  const box = (await page.locator("#screen").boundingBox())!;
  return (x: number, y: number) => ({
    x: box.x + (x * box.width) / 1280,
    y: box.y + (y * box.height) / 800,
  });
}

/** The account page's button covers (100..400, 200..320) in page pixels. */
async function clickButton(page: Page, at: (x: number, y: number) => { x: number; y: number }) {
  const p = at(250, 260);
  await page.mouse.click(p.x, p.y);
}

function expectNoSecret(w: Watched, password: string) {
  const everything = w.traffic.join("\n");
  for (const form of [
    password,
    encodeURIComponent(password),
    Buffer.from(password).toString("base64"),
  ]) {
    expect(everything).not.toContain(form);
  }
}

beforeAll(async () => {
  site = await startLoginSite();
  owner = await newUser("sv-owner");
  ownerApi = await apiAs(base, owner.token);
  viewer = await newUser("sv-viewer");
  viewerApi = await apiAs(base, viewer.token);
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

describe("the session viewer page in Chromium", () => {
  it("full access: an unregistered device is refused; once registered the page connects, draws frames and its clicks reach the site", async () => {
    const share = await activeShare("full");
    const w = await signedInPage(viewer.token);
    await w.page.goto(share.shareUrl);
    await expect.poll(() => w.page.locator("#status").innerText()).toBe(REFUSED);
    expect(w.fingerprints[0]).toMatch(/^[0-9a-f]{64}$/);

    // The fingerprint the page computed is the one registered, as a client's device registration does.
    expect((await viewerApi.post("/api/devices", { fingerprint: w.fingerprints[0] })).status).toBe(
      201,
    );
    await w.page.reload();
    await expect.poll(() => w.page.locator("#mode").innerText()).toBe("full access");
    const at = await frameDrawn(w.page);
    await expect.poll(() => w.page.locator("#status").innerText()).toBe("active");
    expect(await clicks(share.account.username)).toBe(0);
    const pressed = (m: string) => JSON.parse(m).event === "mousePressed";
    const pressSent = w.sentFrame(pressed);
    await clickButton(w.page, at);
    await expect.poll(() => clicks(share.account.username)).toBe(1);
    await pressSent;
    expect(w.sent.some(pressed)).toBe(true);

    expect(await w.page.content()).not.toContain(share.account.password);
    expectNoSecret(w, share.account.password);
    expect((await ownerApi.delete(`/api/session-shares/${share.id}`)).status).toBe(200);
    await expect.poll(() => w.page.locator("#status").innerText()).toBe("ended");
    await w.context.close();
  });

  it("view only: frames are drawn but the page sends no input and a click does not reach the site; the owner's preview does", async () => {
    const share = await activeShare("view_only");
    const w = await signedInPage(viewer.token);
    await openRegistered(w, viewerApi, share.shareUrl);
    await expect.poll(() => w.page.locator("#mode").innerText()).toBe("view only");
    const at = await frameDrawn(w.page);
    await clickButton(w.page, at);
    await w.page.keyboard.press("Enter");
    await new Promise((r) => setTimeout(r, 1500));
    expect(await clicks(share.account.username)).toBe(0);
    expect(w.sent).toEqual([]);

    const o = await signedInPage(owner.token);
    await openRegistered(o, ownerApi, `/s/preview/${share.id}`);
    await expect.poll(() => o.page.locator("#mode").innerText()).toBe("full access");
    const ownerAt = await frameDrawn(o.page);
    await clickButton(o.page, ownerAt);
    await expect.poll(() => clicks(share.account.username)).toBe(1);

    for (const x of [w, o]) {
      expect(await x.page.content()).not.toContain(share.account.password);
      expectNoSecret(x, share.account.password);
    }
    await ownerApi.delete(`/api/session-shares/${share.id}`);
    await w.context.close();
    await o.context.close();
  });
});
