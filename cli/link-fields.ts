/**
 * The agent's part of `vault link <entry>` (link.ts): the fields of an entry the web app's "Share
 * by link" offers, opened in the agent, which alone holds the vault key. Apart from link.ts so the
 * agent does not import the command's side (agent-client.ts), which imports the agent's types.
 */
import { entryLinkFields, type EntryLinkField } from "../core/links";
import type { VaultView } from "./vault-view";

/** The fields of an entry the web app's "Share by link" offers, with what it ticks by default (agent side). */
export async function entryFieldsForLink(
  view: VaultView,
  nameOrId: string,
): Promise<EntryLinkField[]> {
  const e = view.find(nameOrId);
  const s = await view.open(e);
  return entryLinkFields(e, {
    username: s.username ?? "",
    password: s.password ?? "",
    notes: s.notes ?? "",
    totp: s.totp ?? "",
  });
}
