import { env } from "cloudflare:test";
import { SELF } from "./worker";
import { discoveryDelivery, proveMailbox } from "./imap-proof";
import type { TestUser } from "./auth";

export type Provider = "mailx" | "maily" | "codehost" | "idp";
export type Mail = { from: string; subject: string; date: string; body?: string };

const base = env.TEST_MAIL_PROVIDER_URL;
export const discoveryImap = JSON.parse(env.TEST_DISCOVERY_IMAP) as {
  port: number;
  directPort: number;
  control: string;
};

async function ok(res: Response) {
  if (!res.ok) throw new Error(`control call failed: ${res.status} ${await res.text()}`);
  return res;
}

/** An account at the local provider (test/support/mail-provider-server.ts). */
export async function providerAccount(
  provider: Provider,
  email: string,
  messages: Mail[] = [],
): Promise<string> {
  const res = await ok(
    await fetch(`${base}/__control/accounts`, {
      method: "POST",
      body: JSON.stringify({ provider, email, messages }),
    }),
  );
  return ((await res.json()) as { id: string }).id;
}

export async function patchAccount(
  id: string,
  patch: {
    refresh?: "ok" | "invalid_grant" | "server_error";
    tokenDelayMs?: number;
    readDelayMs?: number;
    foreignNextLink?: boolean;
    messages?: Mail[];
    failNext?: { status: number; count: number; retryAfter?: string } | null;
  },
) {
  await ok(
    await fetch(`${base}/__control/accounts/${id}`, {
      method: "PATCH",
      body: JSON.stringify(patch),
    }),
  );
}

export type AccountReport = {
  requests: string[];
  tokenRequests: string[];
  revoked: string[];
  issued: string[];
  liveRefreshTokens: number;
  maxInFlight: number;
  messages: { id: string; unread: boolean }[];
};

export async function accountReport(id: string): Promise<AccountReport> {
  return (await (
    await ok(await fetch(`${base}/__control/accounts/${id}`))
  ).json()) as AccountReport;
}

export async function authUrl(user: TestUser, provider: Provider, legacy = false): Promise<URL> {
  const res = await user.call(
    "GET",
    legacy ? "/api/mailx/auth" : `/api/integrations/${provider}/auth`,
  );
  if (res.status !== 200) throw new Error(`auth failed: ${res.status} ${await res.text()}`);
  // The browser keeps the flow cookie; `callback` presents it as that browser would.
  const flow = /^(__Host-oauth_flow=[^;]+)/.exec(res.headers.get("set-cookie") ?? "")?.[1];
  if (flow) user.defaultHeaders.cookie = flow;
  return new URL(((await res.json()) as { authUrl: string }).authUrl);
}

/** The consent step: the provider signs in `account` and redirects back with code and state. */
export async function authorize(
  url: URL,
  account: string,
  extra: Record<string, string> = {},
): Promise<URL> {
  const u = new URL(url);
  u.searchParams.set("test_account", account);
  for (const [k, v] of Object.entries(extra)) u.searchParams.set(k, v);
  const res = await fetch(u, { redirect: "manual" });
  if (res.status !== 302) throw new Error(`authorize answered ${res.status} ${await res.text()}`);
  return new URL(res.headers.get("location")!);
}

const randomIp = () =>
  `198.51.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}`;

/**
 * Follows the provider's redirect into the service, as the user's browser would: with the user's
 * session cookie and the flow cookie `authUrl` kept. The callback is an authentication endpoint
 * limited per client address (10 per 15 minutes), so each call comes from its own address unless
 * `ip` is given.
 */
export async function callback(
  url: URL | string,
  user?: TestUser,
  ip = randomIp(),
): Promise<{ status: number; location: URL }> {
  const headers: Record<string, string> = { "cf-connecting-ip": ip };
  if (user)
    headers.cookie = [`__Host-access_token=${user.token}`, user.defaultHeaders.cookie]
      .filter(Boolean)
      .join("; ");
  const res = await SELF.fetch(url.toString(), { redirect: "manual", headers });
  return {
    status: res.status,
    location: new URL(res.headers.get("location") ?? "/", "https://app.test"),
  };
}

/** The whole flow; returns the dashboard redirect. */
export async function connectOAuth(
  user: TestUser,
  provider: Provider,
  account: string,
  legacy = false,
) {
  return callback(await authorize(await authUrl(user, provider, legacy), account), user);
}

/** A fresh Dovecot mailbox holding `messages`, reached through the recording proxy. */
export async function imapMailbox(messages: Mail[]): Promise<{ user: string; password: string }> {
  const res = await ok(
    await fetch(`${discoveryImap.control}/mailboxes`, {
      method: "POST",
      body: JSON.stringify({ messages }),
    }),
  );
  return (await res.json()) as { user: string; password: string };
}

export async function replaceImapMessages(box: string, messages: Mail[]) {
  await ok(
    await fetch(`${discoveryImap.control}/mailboxes/${encodeURIComponent(box)}`, {
      method: "PUT",
      body: JSON.stringify({ messages }),
    }),
  );
}

/** The command lines Dovecot received in this mailbox's sessions. */
export async function imapCommands(box: string): Promise<string[]> {
  return (
    (await (
      await ok(
        await fetch(`${discoveryImap.control}/mailboxes/${encodeURIComponent(box)}/commands`),
      )
    ).json()) as { commands: string[] }
  ).commands;
}

/** Connects the mailbox and finishes its mailbox check (unless `prove` is false), as its owner would. */
export async function connectImap(
  user: TestUser,
  box: { user: string; password: string },
  prove = true,
) {
  const res = await user.call("POST", "/api/integrations/imap/connect", {
    body: {
      host: "127.0.0.1",
      port: discoveryImap.port,
      username: box.user,
      password: box.password,
      tls: false,
    },
  });
  if (res.status !== 200) throw new Error(`imap connect failed: ${res.status} ${await res.text()}`);
  const out = (await res.json()) as { success: true; email: string; status: string };
  if (prove) await proveMailbox(user, out.email, discoveryDelivery(discoveryImap.control));
  return out;
}

export async function integrations(user: TestUser) {
  return (
    (await (await user.call("GET", "/api/user-integrations")).json()) as {
      integrations: { provider: string; email: string; status: string; connectedAt: string }[];
    }
  ).integrations;
}
