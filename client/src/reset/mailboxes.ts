/** The caller's connected mailboxes, as the reset and discovery views offer them. */
import type { ApiClient } from "../../../core/api";
import { AUTOMATION_ENDPOINTS as EP } from "../automation/endpoints";

export type Integration = {
  provider: "mailx" | "maily" | "codehost" | "idp" | "imap";
  email: string;
  connectedAt: string;
  status: "active" | "disconnected" | "pending_verification";
};

export const MAILBOX_PROVIDERS = new Set(["mailx", "maily", "imap"]);

export async function integrations(api: ApiClient): Promise<Integration[]> {
  return (await api.request<{ integrations: Integration[] }>(EP.integrations)).integrations;
}

/** Active mailboxes only: a reset reads its mail from one of them (DECISIONS D17). */
export async function activeMailboxes(api: ApiClient): Promise<Integration[]> {
  return (await integrations(api)).filter(
    (i) => i.status === "active" && MAILBOX_PROVIDERS.has(i.provider),
  );
}

export type MailboxProvider = { provider: "mailx" | "maily" | "imap"; configured: boolean };

/** The mailboxes this deployment can connect: an OAuth provider the operator has not set up is configured:false. */
export async function mailboxProviders(api: ApiClient): Promise<MailboxProvider[]> {
  return (await api.request<{ providers: MailboxProvider[] }>(EP.mailboxProviders)).providers;
}
