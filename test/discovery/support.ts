import type { TestUser } from "../support/auth";
import {
  connectImap,
  connectOAuth,
  imapMailbox,
  providerAccount,
  type Mail,
} from "../support/mail-provider";

export type Account = {
  id: string;
  domain: string;
  serviceName: string;
  serviceIcon: string;
  serviceColor: string;
  category: string | null;
  loginUrl: string | null;
  inVault: boolean;
  vaultPasswordId: string | null;
  dismissed: boolean;
  oauthLikely: boolean;
  emailCount: number;
  lastSeen: string | null;
  sourceEmail: string | null;
};
export type Stats = {
  total: number;
  inVault: number;
  notInVault: number;
  oauthLikely: number;
  dismissed: number;
};
export type ListBody = { accounts: Account[]; stats: Stats };

/**
 * A mailbox exercising every scan rule: known and unknown services, stripped leading labels, an
 * excluded consumer address and an excluded bulk sender's subdomain, and mail that matches no
 * subject search.
 */
export const FIXTURE: Mail[] = [
  {
    from: "GitHub <noreply@github.com>",
    subject: "Welcome to GitHub, octo!",
    date: "2026-01-10T09:00:00Z",
  },
  {
    from: "GitHub <notifications@github.com>",
    subject: "[GitHub] New sign-in from Firefox",
    date: "2026-03-01T12:30:00Z",
  },
  {
    from: "Acme Widgets <no-reply@mail.acme-widgets.com>",
    subject: "Please verify your email address",
    date: "2026-02-02T08:00:00Z",
  },
  {
    from: "Shopzilla <orders@em.shopzilla.test>",
    subject: "Your order #1234 has shipped",
    date: "2026-02-03T08:00:00Z",
  },
  { from: "Alice <alice@gmail.com>", subject: "Welcome to the team", date: "2026-02-04T08:00:00Z" },
  {
    from: "Mailer <x@bounces.us-east-1.amazonses.com>",
    subject: "Your account is ready",
    date: "2026-02-05T08:00:00Z",
  },
  {
    from: "bob@notifications.mailer.service-one.test",
    subject: "Thanks for signing up!",
    date: "2026-02-06T08:00:00Z",
  },
  {
    from: "Random Co <hello@random-co.test>",
    subject: "Lunch on Friday?",
    date: "2026-02-07T08:00:00Z",
  },
  {
    from: "Dropbox <no-reply@dropbox.com>",
    subject: "Password reset requested",
    date: "2026-02-08T08:00:00Z",
  },
  {
    from: "Slack <feedback@slack.com>",
    subject: "Security alert: new login to your workspace",
    date: "2026-02-09T08:00:00Z",
  },
];

export const FIXTURE_DOMAINS = [
  "acme-widgets.com",
  "dropbox.com",
  "github.com",
  "service-one.test",
  "shopzilla.test",
  "slack.com",
];

export type Source = "imap" | "mailx" | "maily";

/** Connects a fresh mailbox holding `messages` from the given source; returns its address and handle. */
export async function connectSource(
  user: TestUser,
  source: Source,
  messages: Mail[] = FIXTURE,
): Promise<{ email: string; handle: string }> {
  if (source === "imap") {
    const box = await imapMailbox(messages);
    await connectImap(user, box);
    return { email: box.user, handle: box.user };
  }
  const email = `${source}-${crypto.randomUUID().slice(0, 8)}@mail.example.test`;
  const account = await providerAccount(source, email, messages);
  const { location } = await connectOAuth(user, source, account);
  if (location.searchParams.get("status") !== "connected")
    throw new Error(`connect failed: ${location}`);
  return { email, handle: account };
}

export async function scan(user: TestUser, body?: unknown, original = false): Promise<ListBody> {
  const res = await user.call(
    "POST",
    original ? "/api/discover-accounts" : "/api/accounts",
    body === undefined ? {} : { body },
  );
  if (res.status !== 200) throw new Error(`scan failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as ListBody;
}

export async function list(user: TestUser, query = "", original = false): Promise<ListBody> {
  const res = await user.call(
    "GET",
    `${original ? "/api/discover-accounts" : "/api/accounts"}${query}`,
  );
  if (res.status !== 200) throw new Error(`list failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as ListBody;
}

export const byDomain = (b: ListBody) => Object.fromEntries(b.accounts.map((a) => [a.domain, a]));
