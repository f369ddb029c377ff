/** The sharing endpoints the web app's sharing section uses (checked against OpenAPI like ENDPOINTS). */
import type { ApiClient, EndpointDef } from "./api";
import type { WireBody, WireResponse } from "./wire.gen";
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

export type Share = WireResponse<"/api/sharing", "get">["shares"][number];
export type SharingKey = WireResponse<"/api/sharing/public-key", "get">;
/** The web app always wraps the vault key for the invitee, so its shares all carry one. */
export type NewShare = WireBody<"/api/sharing", "post"> & { wrapped_vault_key_invite: string };
export type ShareChange = WireBody<"/api/sharing/{id}", "patch">;
export type ShareViewAction = WireBody<"/api/sharing/{id}/view", "post">["action"];

export function sharingApi(api: ApiClient) {
  const E = SHARING_ENDPOINTS;
  return {
    ownKey: () => api.request(E.ownKey),
    /**
     * Whether the caller has a sharing key, read where "none" is an answer (the list's
     * `setup_required`) rather than the 404 of `ownKey`, which the browser's console logs.
     */
    hasKey: async () =>
      !(await api.request(E.list, { query: { type: "received", limit: "1" } })).setup_required,
    keyOf: (email: string) => api.request(E.ownKey, { query: { email } }),
    putKey: (publicKey: SharingPublicJwk, wrappedPrivateKey: string) =>
      api.request(E.putKey, { body: { publicKey, wrappedPrivateKey } }),
    list: (type: "owned" | "received") => api.requestAll(E.list, { query: { type } }),
    create: (body: NewShare) => api.request(E.create, { body }),
    patch: (id: string, body: ShareChange) => api.request(E.patch, { params: { id }, body }),
    views: (id: string) => api.request(E.views, { params: { id } }),
    logView: (id: string, action: ShareViewAction) =>
      api.request(E.logView, { params: { id }, body: { action } }),
    updateAccount: (id: string, encrypted_data: string) =>
      api.request(E.updateAccount, { params: { id }, body: { encrypted_data } }),
  };
}
