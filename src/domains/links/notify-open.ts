import type { Db } from "../../db/client";
import type { SecureLinkRow } from "../../db/schema";
import type { Config } from "../../env";
import { logJson } from "../../lib/log";
import { notify } from "../notifications";
import { pushToUser } from "../push";

export const LINK_OPENED = "secure_link_opened";

/**
 * Tells the owner a link was opened: when, and the country the edge saw (absent locally), never
 * what was in it. The stored notification goes in before the answer; the Web Push goes out beside
 * it, so the opener does not wait on push services.
 */
export async function notifyOpened(
  db: Db,
  config: Config,
  row: SecureLinkRow,
  country: string | undefined,
  waitUntil: (p: Promise<unknown>) => void,
) {
  const at = row.lastOpenedAt ?? new Date().toISOString();
  const where = country ? ` from ${country}` : "";
  const body = `Opened${where} at ${at.slice(0, 16).replace("T", " ")} UTC; ${row.viewsUsed} of ${row.maxViews} views used.`;
  try {
    await notify(db, {
      userId: row.ownerId,
      type: LINK_OPENED,
      title: "Your secure link was opened",
      body,
      color: "info",
      actionUrl: "/links",
      metadata: {
        link_id: row.id,
        opened_at: at,
        country: country ?? null,
        views_used: row.viewsUsed,
        max_views: row.maxViews,
      },
    });
    waitUntil(
      pushToUser(db, config, row.ownerId, {
        type: LINK_OPENED,
        title: "Your secure link was opened",
        body,
        url: "/links",
      }),
    );
  } catch {
    // The view is counted and the content on its way: a lost notice must not take it back.
    logJson("error", "secure link open notification failed", { linkId: row.id });
  }
}
