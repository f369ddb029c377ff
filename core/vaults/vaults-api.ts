/** The shared-vault endpoints the apps use (checked against the server's types in client/test/wire-contract.ts). */
import type { ApiClient, EndpointDef, WireBody, WireResponse } from "../api";

export const VAULT_ENDPOINTS = {
  list: { method: "GET", path: "/api/vaults", reads: ["vaults"] },
  create: {
    method: "POST",
    path: "/api/vaults",
    body: ["sealed_name", "wrapped_key"],
    reads: ["vault"],
  },
  get: { method: "GET", path: "/api/vaults/{id}", reads: ["vault"] },
  rename: { method: "PATCH", path: "/api/vaults/{id}", body: ["sealed_name"], reads: ["vault"] },
  invitations: { method: "GET", path: "/api/vaults/invitations", reads: ["invitations"] },
  accept: {
    method: "POST",
    path: "/api/vaults/invitations/{invitation_id}/accept",
    reads: ["vault"],
  },
  decline: {
    method: "POST",
    path: "/api/vaults/invitations/{invitation_id}/decline",
    reads: ["success"],
  },
  invite: {
    method: "POST",
    path: "/api/vaults/{id}/invitations",
    body: ["email", "role"],
    reads: ["invitation"],
  },
  members: { method: "GET", path: "/api/vaults/{id}/members", reads: ["key_version", "members"] },
  wrap: {
    method: "PUT",
    path: "/api/vaults/{id}/members/{user_id}/key",
    body: ["key_version", "wrapped_key"],
    reads: ["member"],
  },
  removeMember: {
    method: "DELETE",
    path: "/api/vaults/{id}/members/{user_id}",
    reads: ["success"],
  },
  setRole: {
    method: "PATCH",
    path: "/api/vaults/{id}/members/{user_id}",
    body: ["role"],
    reads: ["member"],
  },
  transfer: {
    method: "POST",
    path: "/api/vaults/{id}/transfer",
    body: ["user_id"],
    reads: ["vault"],
  },
  remove: { method: "DELETE", path: "/api/vaults/{id}", query: ["entries"], reads: ["success"] },
  activity: {
    method: "GET",
    path: "/api/vaults/{id}/activity",
    query: ["limit", "cursor"],
    reads: ["activity", "next_cursor"],
  },
  key: { method: "GET", path: "/api/vaults/{id}/key", reads: ["key_version", "wrapped_key"] },
  pull: {
    method: "GET",
    path: "/api/vaults/{id}/sync",
    query: ["since", "resume"],
    reads: ["changes", "serverTimestamp", "fullSyncRequired"],
  },
  addEntry: {
    method: "POST",
    path: "/api/vaults/{id}/entries",
    body: [
      "name",
      "wrapped_item_key",
      "encrypted_data",
      "name_hash",
      "username_hash",
      "key_version",
    ],
    reads: ["id", "updated_at"],
  },
  putEntry: {
    method: "PUT",
    path: "/api/vaults/{id}/entries/{entry_id}",
    body: ["name", "wrapped_item_key", "encrypted_data", "key_version"],
    reads: ["id", "updated_at"],
  },
  deleteEntry: {
    method: "DELETE",
    path: "/api/vaults/{id}/entries/{entry_id}",
    reads: ["success"],
  },
  rotation: {
    method: "GET",
    path: "/api/vaults/{id}/rotation",
    reads: ["rotation"],
  },
  beginRotation: {
    method: "POST",
    path: "/api/vaults/{id}/rotation",
    body: ["from_version"],
    reads: ["rotation"],
  },
  stage: {
    method: "PUT",
    path: "/api/vaults/{id}/rotation/entries",
    body: ["version", "entries"],
    reads: ["stale"],
  },
  rotationKeys: {
    method: "PUT",
    path: "/api/vaults/{id}/rotation/keys",
    body: ["version", "wraps"],
    reads: ["rotation"],
  },
  commit: {
    method: "POST",
    path: "/api/vaults/{id}/rotation/commit",
    body: ["version"],
    reads: ["rotation"],
  },
} as const satisfies Record<string, EndpointDef>;

export type SharedVault = WireResponse<"/api/vaults", "get">["vaults"][number];
export type VaultInvitation = WireResponse<"/api/vaults/invitations", "get">["invitations"][number];
export type VaultMember = WireResponse<"/api/vaults/{id}/members", "get">["members"][number];
export type VaultRole = VaultMember["role"];
export type VaultEntryBody = WireBody<"/api/vaults/{id}/entries", "post">;
export type VaultEntryChange = WireBody<"/api/vaults/{id}/entries/{entry_id}", "put">;
export type StagedEntry = WireBody<"/api/vaults/{id}/rotation/entries", "put">["entries"][number];

export function vaultsApi(api: ApiClient) {
  const E = VAULT_ENDPOINTS;
  const at = (id: string) => ({ params: { id } });
  return {
    list: () => api.request(E.list),
    create: (sealed_name: string, wrapped_key: string) =>
      api.request(E.create, { body: { sealed_name, wrapped_key } }),
    get: (id: string) => api.request(E.get, at(id)),
    rename: (id: string, sealed_name: string) =>
      api.request(E.rename, { ...at(id), body: { sealed_name } }),
    invitations: () => api.request(E.invitations),
    accept: (invitation_id: string) => api.request(E.accept, { params: { invitation_id } }),
    decline: (invitation_id: string) => api.request(E.decline, { params: { invitation_id } }),
    invite: (id: string, email: string, role: VaultRole) =>
      api.request(E.invite, { ...at(id), body: { email, role } }),
    members: (id: string) => api.request(E.members, at(id)),
    wrap: (id: string, user_id: string, key_version: number, wrapped_key: string) =>
      api.request(E.wrap, { params: { id, user_id }, body: { key_version, wrapped_key } }),
    removeMember: (id: string, user_id: string) =>
      api.request(E.removeMember, { params: { id, user_id } }),
    setRole: (id: string, user_id: string, role: VaultRole) =>
      api.request(E.setRole, { params: { id, user_id }, body: { role } }),
    transfer: (id: string, user_id: string) =>
      api.request(E.transfer, { ...at(id), body: { user_id } }),
    /** Deletes the vault with every entry in it (owner only; the server asks for a recent sign-in). */
    remove: (id: string) => api.request(E.remove, { ...at(id), query: { entries: "delete" } }),
    activity: (id: string, limit = 50) =>
      api.request(E.activity, { ...at(id), query: { limit: String(limit) } }),
    key: (id: string) => api.request(E.key, at(id)),
    /** Every live entry and tombstone of the vault (the JSON pull answers in one object). */
    pullAll: async (id: string) => (await api.request(E.pull, at(id))).changes,
    addEntry: (id: string, body: VaultEntryBody) => api.request(E.addEntry, { ...at(id), body }),
    putEntry: (id: string, entry_id: string, body: VaultEntryChange) =>
      api.request(E.putEntry, { params: { id, entry_id }, body }),
    deleteEntry: (id: string, entry_id: string) =>
      api.request(E.deleteEntry, { params: { id, entry_id } }),
    rotation: (id: string) => api.request(E.rotation, at(id)),
    beginRotation: (id: string, from_version: number) =>
      api.request(E.beginRotation, { ...at(id), body: { from_version } }),
    stage: (id: string, version: number, entries: StagedEntry[]) =>
      api.request(E.stage, { ...at(id), body: { version, entries } }),
    rotationKeys: (
      id: string,
      version: number,
      wraps: { user_id: string; wrapped_key: string }[],
    ) => api.request(E.rotationKeys, { ...at(id), body: { version, wraps } }),
    commit: (id: string, version: number) =>
      api.request(E.commit, { ...at(id), body: { version } }),
  };
}
export type VaultsApi = ReturnType<typeof vaultsApi>;
