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

const PREFIX: Record<OAuthProvider, string> = {
  mailx: "MAILX",
  maily: "MAILY",
  codehost: "CODEHOST",
  idp: "IDP_OAUTH",
};

/** The mailboxes a person can connect: the two OAuth shapes, and IMAP, which needs no operator setup. */
export const MAILBOX_PROVIDERS = ["mailx", "maily", "imap"] as const;

const settings = (config: Config, name: OAuthProvider) => {
  const c = config as unknown as Record<string, string | undefined>;
  const p = PREFIX[name];
  return {
    c,
    p,
    authUrl: c[`${p}_AUTH_URL`],
    tokenUrl: c[`${p}_TOKEN_URL`],
    apiUrl: c[`${p}_API_URL`],
    clientId: c[`${p}_CLIENT_ID`],
  };
};

/** Whether the operator gave this deployment the provider's OAuth client (the same test providerConfig applies). */
export function isConfigured(config: Config, name: Provider): boolean {
  if (name === "imap") return true;
  const s = settings(config, name);
  return Boolean(s.authUrl && s.tokenUrl && s.apiUrl && s.clientId);
}

/** The provider's configuration, or 503 when the deployment has not configured it. */
export function providerConfig(config: Config, name: OAuthProvider): ProviderConfig {
  const { c, p, authUrl, tokenUrl, apiUrl, clientId } = settings(config, name);
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
  const res = await fetch(url, {
    headers: { authorization: `Bearer ${accessToken}`, accept: "application/json" },
  });
  if (!res.ok) throw new Error(`provider API answered ${res.status}`);
  return (await res.json()) as T;
}

/** The address of the account that granted access, read from the provider's profile endpoint. */
export async function fetchAccountEmail(p: ProviderConfig, accessToken: string): Promise<string> {
  let email: string | undefined;
  if (p.name === "mailx") {
    email = (
      await getJson<{ emailAddress?: string }>(`${p.apiUrl}/gmail/v1/users/me/profile`, accessToken)
    ).emailAddress;
  } else if (p.name === "maily") {
    const me = await getJson<{ mail?: string | null; userPrincipalName?: string }>(
      `${p.apiUrl}/v1.0/me?$select=mail,userPrincipalName`,
      accessToken,
    );
    email = me.mail ?? me.userPrincipalName;
  } else if (p.name === "codehost") {
    const list = await getJson<{ email: string; primary: boolean; verified: boolean }[]>(
      `${p.apiUrl}/user/emails`,
      accessToken,
    );
    email = (list.find((e) => e.primary && e.verified) ?? list.find((e) => e.verified))?.email;
  } else {
    email = (await getJson<{ email?: string }>(`${p.apiUrl}/userinfo`, accessToken)).email;
  }
  if (!email) throw new Error("provider did not report an email address");
  return email.toLowerCase();
}
