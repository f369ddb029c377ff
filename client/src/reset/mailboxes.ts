/** The caller's connected mailboxes, as the reset and discovery views offer them. */
import type { ApiClient, WireResponse } from "../../../core/api";
import { AUTOMATION_ENDPOINTS as EP } from "../automation/endpoints";

export type Integration = WireResponse<"/api/user-integrations", "get">["integrations"][number];

export const MAILBOX_PROVIDERS = new Set(["mailx", "maily", "imap"]);

export async function integrations(api: ApiClient): Promise<Integration[]> {
  return (await api.request(EP.integrations)).integrations;
}

/** Active mailboxes only: a reset reads its mail from one of them (DECISIONS D17). */
export async function activeMailboxes(api: ApiClient): Promise<Integration[]> {
  return (await integrations(api)).filter(
    (i) => i.status === "active" && MAILBOX_PROVIDERS.has(i.provider),
  );
}

export type MailboxProvider = WireResponse<
  "/api/integrations/providers",
  "get"
>["providers"][number];

/** The mailboxes this deployment can connect: an OAuth provider the operator has not set up is configured:false. */
export async function mailboxProviders(api: ApiClient): Promise<MailboxProvider[]> {
  return (await api.request(EP.mailboxProviders)).providers;
}
