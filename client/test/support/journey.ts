/** Helpers for the journeys of docs/decisions/client.md, "Client: app shell, OpenID Connect sign-in, journeys between people" (shell, sharing, emergency access, dead man's switch). */
import { launch, type Browser, type BrowserContext, type Page } from "./browser";
import { server } from "./server";
import { sqlOnWorkerState } from "./storage";

export const base = () => server().baseUrl;

/** A browser context for one person, with page errors surfaced in the test output. */
export async function personContext(
  browser: Browser,
  viewport = { width: 1280, height: 900 },
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: base(), viewport });
  const page = await context.newPage();
  page.on("dialog", (d) => void d.accept());
  page.on("pageerror", (e) => console.error(`page error: ${e.message}`));
  return { context, page };
}

/** Opens a section through the navigation, as a person would, and waits for its heading. */
export async function openSection(page: Page, title: string, heading: string | RegExp = title) {
  await page
    .getByRole("navigation", { name: "Sections" })
    .getByRole("link", { name: title, exact: true })
    .click();
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
}

export { launch };

/**
 * Runs SQL on the local D1 of the suite's wrangler dev (storage.ts, on the database's file): how a
 * test reads what the server stored (the development mail outbox, ciphertext columns) or moves a
 * stored clock as the worker suite's test/support/recovery.ts does. Returns the statement's rows.
 */
export function d1<T = Record<string, unknown>>(sql: string): T[] {
  return sqlOnWorkerState<T>(sql);
}

/** The token of the last emergency invitation mailed to `email` (development outbox, D1). */
export function inviteToken(email: string): string {
  const [mail] = d1<{ text_body: string }>(
    `SELECT text_body FROM outbound_emails WHERE to_address = '${email.toLowerCase().replace(/'/g, "''")}' AND kind = 'emergency.invite' ORDER BY created_at DESC LIMIT 1`,
  );
  const m = /\/emergency\/([A-Za-z0-9_-]+)/.exec(mail?.text_body ?? "");
  if (!m) throw new Error(`no invitation mailed to ${email}`);
  return m[1]!;
}

/**
 * The first use of a contact's key on this device asks in the app's panel (first-use-panel.ts): the
 * person reads the fingerprint and uses the key, without comparing it unless `compared`. Waits for
 * the panel, so a flow that should ask and does not fails here.
 */
export async function useContactKey(page: Page, email: string, compared = false) {
  const panel = page.getByRole("dialog", { name: `Compare ${email}'s key` });
  await panel
    .getByRole("button", { name: compared ? "We compared: they match" : "Use without comparing" })
    .click();
  await panel.waitFor({ state: "detached" });
}
