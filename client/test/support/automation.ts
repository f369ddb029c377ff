/** Helpers for the automation journeys (docs/decisions/client.md, "Client: mailboxes, discovery, resets, session shares and identities in the browser"): mailboxes, the local reset site, the reset tool. */
import { apiAs, ONE_SHOT } from "./api";
import { server } from "./server";
import {
  fillEntry,
  openEntry,
  openNewEntry,
  revealedField,
  type Entry,
  type Page,
} from "./browser";
import { d1 } from "./journey";

export const automation = () => server().automation;

/**
 * The mail transport's part of an IMAP mailbox check: the check message the vault sent to
 * `address` (the development outbox) is delivered into the Dovecot that holds that mailbox.
 */
export async function deliverCheckMail(address: string, dovecot: "reset" | "discovery") {
  const [mail] = d1<{ subject: string; text_body: string }>(
    `SELECT subject, text_body FROM outbound_emails WHERE to_address = '${address.toLowerCase().replace(/'/g, "''")}' AND kind = 'integration.imap_verify' ORDER BY created_at DESC LIMIT 1`,
  );
  if (!mail) throw new Error(`no mailbox check was mailed to ${address}`);
  // On a connection of its own (support/fresh-connections.ts): a connection kept from the
  // mailbox's creation, which the control server closes as idle, fails as "other side closed".
  const res =
    dovecot === "reset"
      ? await fetch(`${automation().resetSite}/__test/deliver`, {
          method: "POST",
          headers: { "content-type": "application/json", ...ONE_SHOT },
          body: JSON.stringify({ to: address, subject: mail.subject, text: mail.text_body }),
        })
      : await fetch(
          `${automation().discoveryImap.control}/mailboxes/${encodeURIComponent(address)}`,
          {
            method: "POST",
            headers: ONE_SHOT,
            body: JSON.stringify({
              messages: [
                {
                  from: "vault@example.test",
                  to: address,
                  subject: mail.subject,
                  body: mail.text_body,
                },
              ],
            }),
          },
        );
  if (res.status !== 201) throw new Error(`check message delivery: ${res.status}`);
}

/** Connects an IMAP mailbox through the API and finishes its check, as another device of the user would. */
export async function connectImapMailbox(
  api: Awaited<ReturnType<typeof apiAs>>,
  dovecot: "reset" | "discovery",
  box: { user: string; password: string; port: number },
) {
  const res = await api.post("/api/integrations/imap/connect", {
    host: "127.0.0.1",
    port: box.port,
    username: box.user,
    password: box.password,
    tls: false,
  });
  if (res.status !== 200)
    throw new Error(`imap connect: ${res.status} ${JSON.stringify(res.body)}`);
  await deliverCheckMail(box.user, dovecot);
  const verified = await api.post("/api/integrations/imap/verify", {});
  if (verified.status !== 200 || verified.body.status !== "active")
    throw new Error(`imap verify: ${verified.status} ${JSON.stringify(verified.body)}`);
}

/** Connects one of the reset Dovecot's mailboxes through the API, as another device of the user would. */
export async function connectResetMailbox(base: string, token: string, address: string) {
  const api = await apiAs(base, token);
  const { resetImap } = automation();
  await connectImapMailbox(api, "reset", {
    user: address,
    password: resetImap.password,
    port: resetImap.port,
  });
  return api;
}

export async function siteAccount(email: string, password: string) {
  const res = await fetch(`${automation().resetSite}/__test/users`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  if (!res.ok) throw new Error(`site user: ${res.status}`);
}

/** The reset site's answer to a login: 200 accepted, 401 refused. */
export async function siteLogin(email: string, password: string): Promise<number> {
  return (
    await fetch(`${automation().resetSite}/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password }),
    })
  ).status;
}

/** Adds an entry in the vault form with its URL (the address a reset starts from). */
export async function addEntryWithUrl(page: Page, e: Entry & { url: string }) {
  await openNewEntry(page);
  await page.getByLabel("URL", { exact: true }).fill(e.url);
  await fillEntry(page, e);
}

/** Opens an entry: its fields and its tools (the reset tool among them) show. */
export async function revealEntry(page: Page, name: string) {
  await openEntry(page, name);
  await page.locator('#revealed-fields dd[data-field="password"]').waitFor();
}

export const revealedPassword = (page: Page) => revealedField(page, "password");

/** The reset tasks this page's device still has to save (metadata `resets:<user>`), by task id. */
export function trackedResets(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const r = indexedDB.open("app-sync", 1);
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    const rows = await new Promise<{ key: string; value: { taskId: string }[] }[]>(
      (resolve, reject) => {
        const r = db.transaction("metadata").objectStore("metadata").getAll();
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      },
    );
    db.close();
    return rows
      .filter((row) => row.key.startsWith("resets:"))
      .flatMap((row) => row.value.map((t) => t.taskId));
  });
}

/** An account at the local OAuth mail provider (test/support/mail-provider-server.ts). */
export async function providerAccount(
  provider: "mailx" | "maily",
  email: string,
  messages: { from: string; subject: string; date: string; body?: string }[] = [],
): Promise<string> {
  const res = await fetch(`${automation().mailProviderUrl}/__control/accounts`, {
    method: "POST",
    body: JSON.stringify({ provider, email, messages }),
  });
  if (!res.ok) throw new Error(`provider account: ${res.status}`);
  return ((await res.json()) as { id: string }).id;
}

export async function patchProviderAccount(id: string, patch: Record<string, unknown>) {
  const res = await fetch(`${automation().mailProviderUrl}/__control/accounts/${id}`, {
    method: "PATCH",
    body: JSON.stringify(patch),
  });
  if (!res.ok) throw new Error(`provider patch: ${res.status}`);
}

/**
 * The provider's consent page, answered for `account`: the local provider signs in the account its
 * `test_account` parameter names, which the browser's request gets added here.
 */
export async function consentAs(page: Page, provider: "mailx" | "maily", account: string) {
  await page.route(`${automation().mailProviderUrl}/${provider}/authorize?**`, (route) =>
    route.continue({ url: `${route.request().url()}&test_account=${encodeURIComponent(account)}` }),
  );
}

/** A fresh mailbox in the discovery Dovecot (its control API), holding `messages`. */
export async function discoveryMailbox(
  messages: { from: string; subject: string; date?: string }[] = [],
): Promise<{ user: string; password: string }> {
  const res = await fetch(`${automation().discoveryImap.control}/mailboxes`, {
    method: "POST",
    body: JSON.stringify({ messages }),
  });
  if (!res.ok) throw new Error(`discovery mailbox: ${res.status}`);
  return (await res.json()) as { user: string; password: string };
}

/** A fresh account at the local alias provider; its API key. */
export async function aliasProviderKey(): Promise<string> {
  const res = await fetch(`${automation().aliasProviderUrl}/__control/accounts`, {
    method: "POST",
    body: JSON.stringify({ mode: "ok" }),
  });
  return ((await res.json()) as { apiKey: string }).apiKey;
}

export async function aliasProviderState(
  apiKey: string,
): Promise<{ aliases: { email: string; enabled: boolean }[] }> {
  return (await (
    await fetch(`${automation().aliasProviderUrl}/__control/accounts/${apiKey}`)
  ).json()) as { aliases: { email: string; enabled: boolean }[] };
}
