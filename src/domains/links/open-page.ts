import type { Context } from "hono";
import type { AppEnv } from "../../http/types";

/**
 * The page an opener lands on: the web client's static link.html, served for every link id so
 * the id never becomes a file name. It holds no account and no service worker; it reads the key
 * from the fragment, which browsers never send, and the headers keep it there: no Referer leaves
 * the page, nothing but this origin is reachable, and nothing may frame it.
 */
export const OPEN_PAGE_HEADERS = {
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
  "x-robots-tag": "noindex, nofollow",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; manifest-src 'none'; worker-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
} as const;

const LINK_PATH = /^[A-Za-z0-9_-]{1,64}$/;

export async function openPage(c: Context<AppEnv>): Promise<Response> {
  const id = c.req.param("id") ?? "";
  const page =
    LINK_PATH.test(id) && c.env.ASSETS
      ? await c.env.ASSETS.fetch(new Request(new URL("/link", c.req.url)))
      : null;
  const out = page?.ok
    ? new Response(page.body, {
        status: 200,
        headers: { "content-type": "text/html; charset=utf-8" },
      })
    : new Response("Not found", {
        status: 404,
        headers: { "content-type": "text/plain; charset=utf-8" },
      });
  for (const [k, v] of Object.entries(OPEN_PAGE_HEADERS)) out.headers.set(k, v);
  return out;
}
