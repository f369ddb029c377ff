import type { HTTPRequest, Page } from "@cloudflare/puppeteer";
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

/** Installs the guard on a page before it loads anything; a refused request fails as blocked. */
export async function guardPageRequests(page: Page, opts: GuardOptions): Promise<void> {
  const decide = requestGuard(opts);
  await page.setRequestInterception(true);
  page.on("request", (req: HTTPRequest) => {
    void decide(req.url())
      .then((v) => (v === "continue" ? req.continue() : req.abort("blockedbyclient")))
      // The page may have gone (closed, navigated) before the verdict: nothing left to answer.
      .catch(() => undefined);
  });
}
