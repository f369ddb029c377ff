import { expect } from "vitest";
import type { TestUser } from "./auth";
import { entryBody } from "./fixtures";

export type Role = "owner" | "manager" | "editor" | "viewer";
export type Vault = {
  id: string;
  key_version: number;
  role: Role;
  member_state: string;
  members: number;
};
export type Member = {
  user_id: string | null;
  email: string | null;
  role: Role;
  state: string;
  key_version: number | null;
};

const b64 = (n = 48) => btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(n))));
export const sealedName = () => b64(32);
export const wrapped = () => b64(96);

export async function createVault(owner: TestUser): Promise<Vault> {
  const res = await owner.call("POST", "/api/vaults", {
    body: { sealed_name: sealedName(), wrapped_key: wrapped() },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { vault: Vault }).vault;
}

export async function invite(by: TestUser, vaultId: string, who: TestUser, role: Role) {
  const res = await by.call("POST", `/api/vaults/${vaultId}/invitations`, {
    body: { email: who.email, role },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { invitation: { id: string } }).invitation;
}

/** Invited, accepted and given a copy of the current key by `by`. */
export async function join(
  by: TestUser,
  vaultId: string,
  who: TestUser,
  role: Role,
  keyVersion = 1,
) {
  const inv = await invite(by, vaultId, who, role);
  const acc = await who.call("POST", `/api/vaults/invitations/${inv.id}/accept`);
  expect(acc.status).toBe(200);
  const wrap = await by.call("PUT", `/api/vaults/${vaultId}/members/${who.id}/key`, {
    body: { key_version: keyVersion, wrapped_key: wrapped() },
  });
  expect(wrap.status).toBe(200);
}

export async function addEntry(user: TestUser, vaultId: string, keyVersion = 1) {
  const res = await user.call("POST", `/api/vaults/${vaultId}/entries`, {
    body: { ...entryBody(), key_version: keyVersion },
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; updated_at: string };
}

export type Pulled = {
  changes: { id: string; _deleted: boolean; updated_at?: string; encrypted_data?: string }[];
  serverTimestamp: string;
};

export async function pull(user: TestUser, vaultId: string, since?: string) {
  return user.call(
    "GET",
    `/api/vaults/${vaultId}/sync${since ? `?since=${encodeURIComponent(since)}` : ""}`,
  );
}

export async function members(user: TestUser, vaultId: string) {
  const res = await user.call("GET", `/api/vaults/${vaultId}/members`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { members: Member[] }).members;
}
