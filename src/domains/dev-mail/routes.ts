import type { Hono } from "hono";
import { desc } from "drizzle-orm";
import { eachShard } from "../../db/client";
import { outboundEmails } from "../../db/schema";
import { servesDevMail } from "../../env";
import { handleNotFound } from "../../http/errors";
import { route } from "../../http/route";
import type { AppEnv } from "../../http/types";
import { renderMailPage } from "./page";

/** Mails the page shows: the newest, across every shard (each user's mail is on their shard). */
const LIMIT = 100;

/**
 * Development mail in the browser: with ENVIRONMENT=development and MAIL_TRANSPORT=outbox the
 * mail the service would have sent is only a row in outbound_emails, so this page lists it, links
 * working. It answers only when APP_ORIGIN is a loopback origin as well (servesDevMail): the page
 * holds every user's mail and tokens without a sign-in, and a deploy without `--env production`
 * has development's settings too. Any other configuration answers 404 exactly as an unknown path does.
 */
export function registerDevMailRoutes(app: Hono<AppEnv>) {
  route(app, {
    method: "get",
    path: "/dev/mail",
    summary:
      "Development only: the mail the outbox holds, newest first, as an HTML page (404 unless served from this machine)",
    tags: ["dev"],
    auth: false,
    responses: {
      200: { description: "HTML page of sent mail", contentType: "text/html" },
      404: { description: "Not development with the outbox transport and a loopback APP_ORIGIN" },
    },
    handler: async (c) => {
      const config = c.get("config");
      if (!servesDevMail(config)) return handleNotFound(c);
      const perShard = await Promise.all(
        eachShard(c.env).map(({ db }) =>
          db
            .select()
            .from(outboundEmails)
            .orderBy(desc(outboundEmails.createdAt))
            .limit(LIMIT)
            .all(),
        ),
      );
      const mails = perShard
        .flat()
        .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0))
        .slice(0, LIMIT)
        .map((r) => ({
          to: r.toAddress,
          subject: r.subject,
          kind: r.kind,
          createdAt: r.createdAt,
          text: r.textBody,
        }));
      const nonce = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
      return c.html(renderMailPage(mails, nonce), 200, {
        "Content-Security-Policy": `default-src 'none'; style-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
      });
    },
  });
}
