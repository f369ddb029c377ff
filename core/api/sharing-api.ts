/** The sharing endpoints the web app's sharing section uses (checked against OpenAPI like ENDPOINTS). */
import type { ApiClient, EndpointDef } from "./api";
import type { SharingPublicJwk } from "../crypto";

export const SHARING_ENDPOINTS = {
  ownKey: {
    method: "GET",
    path: "/api/sharing/public-key",
    query: ["email"],
    reads: ["publicKey", "wrappedPrivateKey"],
  },
  putKey: {
    method: "PUT",
    path: "/api/sharing/public-key",
    body: ["publicKey", "wrappedPrivateKey"],
    reads: ["publicKey"],
  },
  list: {
    method: "GET",
    path: "/api/sharing",
    query: ["type", "limit", "cursor"],
    reads: ["shares", "setup_required", "next_cursor"],
  },
  create: {
    method: "POST",
    path: "/api/sharing",
    body: ["accountId", "recipientEmail", "permission", "expiresAt", "wrapped_vault_key_invite"],
    reads: ["share"],
  },
  patch: { method: "PATCH", path: "/api/sharing/{id}", body: ["status", "permission"], reads: [] },
  views: { method: "GET", path: "/api/sharing/{id}/views", reads: ["views"] },
  logView: {
    method: "POST",
    path: "/api/sharing/{id}/view",
    body: ["action"],
    reads: ["action", "logged_at"],
  },
  updateAccount: {
    method: "PATCH",
    path: "/api/sharing/{id}/account",
    body: ["encrypted_data"],
    reads: ["account"],
  },
} as const satisfies Record<string, EndpointDef>;

export type Share = {
  id: string;
  account_id: string;
  owner_id: string;
  recipient_email: string;
  status: "pending" | "active" | "revoked";
  permission: "read" | "write";
  expires_at: string | null;
  accepted_at: string | null;
  created_at: string;
  /** In received listings: who shared it. */
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

export type SharingKey = { publicKey: SharingPublicJwk; wrappedPrivateKey?: string | null };

export function sharingApi(api: ApiClient) {
  const E = SHARING_ENDPOINTS;
  return {
    ownKey: () => api.request<SharingKey>(E.ownKey),
    keyOf: (email: string) => api.request<SharingKey>(E.ownKey, { query: { email } }),
    putKey: (publicKey: SharingPublicJwk, wrappedPrivateKey: string) =>
      api.request<SharingKey>(E.putKey, { body: { publicKey, wrappedPrivateKey } }),
    list: (type: "owned" | "received") =>
      api.requestAll<{ shares: Share[]; setup_required: boolean }>(E.list, { query: { type } }),
    create: (body: {
      accountId: string;
      recipientEmail: string;
      permission: "read" | "write";
      expiresAt?: string;
      wrapped_vault_key_invite: string;
    }) => api.request<{ share: Share }>(E.create, { body }),
    patch: (id: string, body: { status?: "active" | "revoked"; permission?: "read" | "write" }) =>
      api.request<unknown>(E.patch, { params: { id }, body }),
    views: (id: string) =>
      api.request<{ views: { action: string; logged_at: string }[] }>(E.views, { params: { id } }),
    logView: (id: string, action: "password_viewed" | "password_copied") =>
      api.request<unknown>(E.logView, { params: { id }, body: { action } }),
    updateAccount: (id: string, encrypted_data: string) =>
      api.request<unknown>(E.updateAccount, { params: { id }, body: { encrypted_data } }),
  };
}
