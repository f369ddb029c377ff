import type { Browser, CDPSession, HTTPRequest, Page } from "@cloudflare/puppeteer";
import { assertPublicUrl, type GuardOptions } from "./outbound-guard";

/** What a page may load without the network: inline data, its own blobs, blank frames. */
const LOCAL = /^(data|blob|about):/i;

export type RequestVerdict = "continue" | "abort";

/**
 * The outbound guard (DECISIONS D12) for everything an automation page asks for: subresources,
 * frames, and each hop of a redirect (Chromium hands every hop to the interceptor as a request of
 * its own). A host's verdict is kept for the page's life, so a page of a hundred images costs one
 * lookup per host. The browser resolves names itself, after us: a name that changes its answer
 * between the two is the one case this cannot close, as for any check made before a connection.
 */
export function requestGuard(opts: GuardOptions): (url: string) => Promise<RequestVerdict> {
  const hosts = new Map<string, Promise<boolean>>();
  return async function decide(raw) {
    if (LOCAL.test(raw)) return "continue";
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return "abort";
    }
    // The guard's own rules decide the rest: http(s) only, no credentials, public addresses.
    const origin = `${url.protocol}//${url.username || url.password ? "user@" : ""}${url.host}/`;
    let verdict = hosts.get(origin);
    if (!verdict) {
      verdict = assertPublicUrl(origin, "url", opts).then(
        () => true,
        () => false,
      );
      hosts.set(origin, verdict);
    }
    return (await verdict) ? "continue" : "abort";
  };
}

/**
 * Run in every frame before the page's own scripts (Page.addScriptToEvaluateOnNewDocument): the
 * channels that do not pass through request interception are refused outright. WebSockets and
 * WebTransport open their connections outside the Fetch domain; WebRTC's ICE reaches addresses
 * of its own choosing; workers and popups are targets of their own. A reset or a shared sign-in
 * needs none of them.
 */
export const REFUSE_UNGUARDED_CHANNELS = `(() => {
  const refuse = (name) => function () { throw new DOMException(name + " is not available in this browser", "SecurityError"); };
  for (const name of ["WebSocket", "WebTransport", "Worker", "SharedWorker", "RTCPeerConnection", "webkitRTCPeerConnection", "RTCDataChannel"]) {
    try { Object.defineProperty(globalThis, name, { value: refuse(name), writable: false, configurable: false }); } catch {}
  }
  try { Object.defineProperty(window, "open", { value: () => null, writable: false, configurable: false }); } catch {}
  try {
    const sw = navigator.serviceWorker;
    if (sw) Object.defineProperty(sw, "register", { value: () => Promise.reject(new DOMException("service workers are not available in this browser", "SecurityError")), writable: false, configurable: false });
  } catch {}
})();`;

const guardedBrowsers = new WeakMap<Browser, Promise<void>>();

/**
 * The guard at the browser's own level (the Fetch domain on the browser target sees the requests
 * of every target: popups, dedicated, shared and service workers, which a page's interception
 * does not), once per browser. A popup is closed as soon as it appears, whatever opened it (a
 * target=_blank link or form, window.open from a realm the page script did not reach).
 */
function guardBrowser(
  browser: Browser,
  decide: (url: string) => Promise<RequestVerdict>,
): Promise<void> {
  let done = guardedBrowsers.get(browser);
  if (!done) {
    done = (async () => {
      const session: CDPSession = await browser.target().createCDPSession();
      session.on("Fetch.requestPaused", (e: { requestId: string; request: { url: string } }) => {
        void decide(e.request.url)
          .then((v) =>
            v === "continue"
              ? session.send("Fetch.continueRequest", { requestId: e.requestId })
              : session.send("Fetch.failRequest", {
                  requestId: e.requestId,
                  errorReason: "BlockedByClient",
                }),
          )
          .catch(() => undefined);
      });
      await session.send("Fetch.enable", {
        patterns: [{ urlPattern: "*", requestStage: "Request" }],
      });
      browser.on("targetcreated", (t) => {
        if (t.type() !== "page" || !t.opener()) return;
        void t
          .page()
          .then(
            (p) => p?.close(),
            () => undefined,
          )
          .catch(() => undefined);
      });
    })();
    guardedBrowsers.set(browser, done);
  }
  return done;
}

/**
 * Installs the guard on a page before it loads anything; a refused request fails as blocked. The
 * page's own interception decides its frames and subresources; the browser-level one (above)
 * those of every other target; WebSockets, WebTransport, WebRTC, workers and window.open are
 * refused in every frame, and a WebSocket that appears anyway (Network.webSocketCreated) to a
 * host the guard refuses closes the page.
 */
export async function guardPageRequests(page: Page, opts: GuardOptions): Promise<void> {
  const decide = requestGuard(opts);
  await guardBrowser(page.browser(), decide);
  await page.evaluateOnNewDocument(REFUSE_UNGUARDED_CHANNELS);
  const cdp = await page.createCDPSession();
  cdp.on("Network.webSocketCreated", (e: { url: string }) => {
    void decide(e.url.replace(/^ws(s?):/i, "http$1:"))
      .then((v) => (v === "abort" ? page.close() : undefined))
      .catch(() => undefined);
  });
  await cdp.send("Network.enable");
  await page.setRequestInterception(true);
  page.on("request", (req: HTTPRequest) => {
    void decide(req.url())
      .then((v) => (v === "continue" ? req.continue() : req.abort("blockedbyclient")))
      // The page may have gone (closed, navigated) before the verdict: nothing left to answer.
      .catch(() => undefined);
  });
}
