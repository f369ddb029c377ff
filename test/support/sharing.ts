import { TestUser } from "./auth";
import { createEntry } from "./fixtures";

export const invite = () =>
  btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(60))));

export type ShareJson = {
  id: string;
  account_id: string;
  owner_id: string;
  recipient_id: string | null;
  recipient_email: string;
  status: string;
  permission: string;
  expires_at: string | null;
  accepted_at: string | null;
  created_at: string;
  invite_token_salt?: string | null;
  owner_email?: string | null;
  account?: {
    id: string;
    name: string;
    website: string | null;
    url: string | null;
    encrypted_data?: string | null;
    wrapped_item_key?: string | null;
  };
};

export async function createShare(
  owner: TestUser,
  body: Record<string, unknown>,
): Promise<ShareJson> {
  const res = await owner.call("POST", "/api/sharing", { body });
  if (res.status !== 201) throw new Error(`share create failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { share: ShareJson }).share;
}

/** An owner with an entry shared to a fresh recipient, optionally accepted. */
export async function sharedPair(
  opts: { permission?: "read" | "write"; accept?: boolean; expiresAt?: string } = {},
) {
  const owner = await TestUser.create();
  const recipient = await TestUser.create();
  const entry = await createEntry(owner, { name: "Bank", website: "bank.test" });
  const wrapped = invite();
  const share = await createShare(owner, {
    accountId: entry.id,
    recipientEmail: recipient.email,
    permission: opts.permission ?? "read",
    wrapped_vault_key_invite: wrapped,
    invite_token_salt: "salt-1",
    ...(opts.expiresAt ? { expiresAt: opts.expiresAt } : {}),
  });
  if (opts.accept !== false) {
    const res = await recipient.call("PATCH", `/api/sharing/${share.id}`, {
      body: { status: "active" },
    });
    if (res.status !== 200) throw new Error(`accept failed: ${res.status} ${await res.text()}`);
  }
  return { owner, recipient, entry, share, wrapped };
}

export async function listShares(user: TestUser, type: "owned" | "received", accountId?: string) {
  const res = await user.call(
    "GET",
    `/api/sharing?type=${type}${accountId ? `&accountId=${accountId}` : ""}`,
  );
  if (res.status !== 200) throw new Error(`list failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as { shares: ShareJson[]; setup_required: boolean };
}
