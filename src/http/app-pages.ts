import type { Hono } from "hono";
import type { AppEnv } from "./types";

/**
 * App paths that carry a token after the section's path (the links the server mails,
 * /emergency/<token>; a shared vault's own page, /vaults/<id>): the worker answers with that section's shell page from the static assets,
 * so the token never becomes a file name and the page works for any token.
 */
const TOKEN_SECTIONS = ["/emergency", "/vaults"] as const;

export function registerAppPages(app: Hono<AppEnv>) {
  for (const section of TOKEN_SECTIONS) {
    app.get(`${section}/:token{[A-Za-z0-9_-]{1,200}}`, async function appShellPage(c) {
      if (!c.env.ASSETS) return c.notFound();
      const res = await c.env.ASSETS.fetch(
        new Request(new URL(section, c.req.url), { headers: c.req.raw.headers }),
      );
      const out = new Response(res.body, res);
      // The token is a secret: keep it out of Referer headers and shared caches.
      out.headers.set("Referrer-Policy", "no-referrer");
      out.headers.set("Cache-Control", "no-store");
      return out;
    });
  }
}
