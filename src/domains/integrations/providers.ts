import type { Config } from "../../env";
import { AppError, ErrorCode } from "../../lib/errors";

export const OAUTH_PROVIDERS = ["mailx", "maily", "codehost", "idp"] as const;
export type OAuthProvider = (typeof OAUTH_PROVIDERS)[number];
export type Provider = OAuthProvider | "imap";

export type ProviderConfig = {
  name: OAuthProvider;
  authUrl: string;
  tokenUrl: string;
  revokeUrl?: string;
  apiUrl: string;
  clientId: string;
  clientSecret?: string;
  scopes: string;
  /** Whether the provider holds a mailbox that discovery can scan. */
  mailbox: boolean;
};

const PREFIX: Record<OAuthProvider, string> = { mailx: "MAILX", maily: "MAILY", codehost: "CODEHOST", idp: "IDP_OAUTH" };

/** The provider's configuration, or 503 when the deployment has not configured it. */
export function providerConfig(config: Config, name: OAuthProvider): ProviderConfig {
  const c = config as unknown as Record<string, string | undefined>;
  const p = PREFIX[name];
  const authUrl = c[`${p}_AUTH_URL`];
  const tokenUrl = c[`${p}_TOKEN_URL`];
  const apiUrl = c[`${p}_API_URL`];
  const clientId = c[`${p}_CLIENT_ID`];
  if (!authUrl || !tokenUrl || !apiUrl || !clientId) {
    throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, `Provider ${name} is not configured`);
  }
  return {
    name,
    authUrl,
    tokenUrl,
    revokeUrl: c[`${p}_REVOKE_URL`],
    apiUrl: apiUrl.replace(/\/$/, ""),
    clientId,
    clientSecret: c[`${p}_CLIENT_SECRET`],
    scopes: c[`${p}_SCOPES`] ?? "",
    mailbox: name === "mailx" || name === "maily",
  };
}

async function getJson<T>(url: string, accessToken: string): Promise<T> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${accessToken}`, accept: "application/json" } });
  if (!res.ok) throw new Error(`provider API answered ${res.status}`);
  return (await res.json()) as T;
}

/** The address of the account that granted access, read from the provider's profile endpoint. */
export async function fetchAccountEmail(p: ProviderConfig, accessToken: string): Promise<string> {
  let email: string | undefined;
  if (p.name === "mailx") {
    email = (await getJson<{ emailAddress?: string }>(`${p.apiUrl}/gmail/v1/users/me/profile`, accessToken)).emailAddress;
  } else if (p.name === "maily") {
    const me = await getJson<{ mail?: string | null; userPrincipalName?: string }>(`${p.apiUrl}/v1.0/me?$select=mail,userPrincipalName`, accessToken);
    email = me.mail ?? me.userPrincipalName;
  } else if (p.name === "codehost") {
    const list = await getJson<{ email: string; primary: boolean; verified: boolean }[]>(`${p.apiUrl}/user/emails`, accessToken);
    email = (list.find((e) => e.primary && e.verified) ?? list.find((e) => e.verified))?.email;
  } else {
    email = (await getJson<{ email?: string }>(`${p.apiUrl}/userinfo`, accessToken)).email;
  }
  if (!email) throw new Error("provider did not report an email address");
  return email.toLowerCase();
}

export type MessageMeta = { from: string; date: string | null };

const GMAIL_PAGE = 500;
const GRAPH_PAGE = 100;
/** Metadata requests in flight at once for the Gmail-shaped scan (one request per message). */
export const GMAIL_METADATA_CONCURRENCY = 10;

/** Maps with at most `limit` calls in flight, keeping the input order. */
async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

const gmailTerm = (phrase: string) => `subject:(${phrase.includes(" ") ? `"${phrase}"` : phrase})`;

/**
 * Gmail-shaped scan: one server-side subject query per phrase group (rule 1), then each message's
 * From and Date only (format=metadata with metadataHeaders, so no body or other header is
 * transferred), a bounded number at a time. A message matched by two groups is read once.
 */
async function* scanMailx(p: ProviderConfig, token: string, groups: string[][]): AsyncGenerator<MessageMeta> {
  const seen = new Set<string>();
  for (const group of groups) {
    let pageToken: string | undefined;
    do {
      const list = new URL(`${p.apiUrl}/gmail/v1/users/me/messages`);
      list.searchParams.set("q", group.map(gmailTerm).join(" OR "));
      list.searchParams.set("maxResults", String(GMAIL_PAGE));
      if (pageToken) list.searchParams.set("pageToken", pageToken);
      const page = await getJson<{ messages?: { id: string }[]; nextPageToken?: string }>(list.toString(), token);
      const fresh = (page.messages ?? []).map((m) => m.id).filter((id) => !seen.has(id) && seen.add(id));
      const metas = await mapLimited(fresh, GMAIL_METADATA_CONCURRENCY, (id) =>
        getJson<{ payload?: { headers?: { name: string; value: string }[] } }>(
          `${p.apiUrl}/gmail/v1/users/me/messages/${encodeURIComponent(id)}?format=metadata&metadataHeaders=From&metadataHeaders=Date`,
          token,
        ),
      );
      for (const meta of metas) {
        const header = (n: string) => meta.payload?.headers?.find((h) => h.name.toLowerCase() === n)?.value ?? null;
        const from = header("from");
        if (from) yield { from, date: header("date") };
      }
      pageToken = page.nextPageToken;
    } while (pageToken);
  }
}

/**
 * A paging link is followed with the bearer token only when it stays on the API's origin, so a
 * response cannot send the token elsewhere; any other link ends the listing.
 */
function sameOrigin(link: string | undefined, apiUrl: string): string | undefined {
  if (!link) return undefined;
  try {
    if (new URL(link).origin === new URL(apiUrl).origin) return link;
  } catch {
    // Not a URL: stop paging.
  }
  console.warn("provider paging link to another origin ignored");
  return undefined;
}

/** Graph-shaped scan: one $search per phrase group, selecting only from and receivedDateTime. */
async function* scanMaily(p: ProviderConfig, token: string, groups: string[][]): AsyncGenerator<MessageMeta> {
  const seen = new Set<string>();
  for (const group of groups) {
    const kql = group.map((phrase) => `subject:"${phrase}"`).join(" OR ");
    let next: string | undefined = `${p.apiUrl}/v1.0/me/messages?$search=${encodeURIComponent(`"${kql.replace(/"/g, '\\"')}"`)}&$select=from,receivedDateTime&$top=${GRAPH_PAGE}`;
    while (next) {
      const page: { value?: { id: string; from?: { emailAddress?: { address?: string; name?: string } }; receivedDateTime?: string }[]; "@odata.nextLink"?: string } =
        await getJson(next, token);
      for (const m of page.value ?? []) {
        if (seen.has(m.id)) continue;
        seen.add(m.id);
        const address = m.from?.emailAddress?.address;
        if (address) yield { from: address, date: m.receivedDateTime ?? null };
      }
      next = sameOrigin(page["@odata.nextLink"], p.apiUrl);
    }
  }
}

export function scanProvider(p: ProviderConfig, token: string, groups: string[][]): AsyncGenerator<MessageMeta> {
  if (p.name === "mailx") return scanMailx(p, token, groups);
  if (p.name === "maily") return scanMaily(p, token, groups);
  throw new Error(`${p.name} has no mailbox`);
}
