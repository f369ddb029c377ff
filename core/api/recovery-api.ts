/**
 * The emergency access and dead man's switch endpoints the web app uses (checked against OpenAPI
 * like ENDPOINTS, client/test/openapi-contract.test.ts).
 */
import type { ApiClient, EndpointDef } from "./api";
import type { WireBody, WireResponse } from "./wire.gen";

export const EMERGENCY_ENDPOINTS = {
  emergencyList: {
    method: "GET",
    path: "/api/vault/emergency",
    query: ["limit", "cursor"],
    reads: ["as_owner", "as_contact", "next_cursor"],
  },
  emergencyAdd: {
    method: "POST",
    path: "/api/vault/emergency",
    body: ["email", "wait_hours", "wrapped_access_key", "invite_salt"],
    reads: ["contact"],
  },
  emergencyUpdate: {
    method: "PATCH",
    path: "/api/vault/emergency/{id}",
    body: ["wait_hours"],
    reads: ["contact"],
  },
  emergencyRevoke: { method: "DELETE", path: "/api/vault/emergency/{id}", reads: ["success"] },
  emergencyAccept: {
    method: "POST",
    path: "/api/vault/emergency/accept",
    body: ["token", "contact_id"],
    reads: ["contact"],
  },
  emergencyRequest: {
    method: "POST",
    path: "/api/vault/emergency/request",
    body: ["contact_id"],
    reads: ["contact"],
  },
  emergencyRespond: {
    method: "POST",
    path: "/api/vault/emergency/respond",
    body: ["contact_id", "action"],
    reads: ["contact"],
  },
  emergencyAccess: {
    method: "GET",
    path: "/api/vault/emergency/access",
    query: ["contact_id"],
    reads: ["wrapped_access_key", "invite_salt"],
  },
  emergencyVault: {
    method: "GET",
    path: "/api/vault/emergency/{id}/vault",
    reads: ["owner_email", "owner_id", "entries"],
  },
} as const satisfies Record<string, EndpointDef>;

export const DMS_ENDPOINTS = {
  dmsStatus: {
    method: "GET",
    path: "/api/dead-man-switch",
    reads: ["switch", "recipients", "recent_logs", "days_remaining", "is_warning"],
  },
  dmsSave: {
    method: "POST",
    path: "/api/dead-man-switch",
    body: [
      "enabled",
      "inactivity_days",
      "notify_at_days",
      "notify_via",
      "confirmation_required",
      "secret_phrase",
    ],
    reads: ["success", "switch"],
  },
  dmsDelete: { method: "DELETE", path: "/api/dead-man-switch", reads: ["success"] },
  dmsCheckIn: {
    method: "POST",
    path: "/api/dead-man-switch/check-in",
    reads: ["success", "next_trigger_at", "days_until_trigger"],
  },
  dmsAddRecipient: {
    method: "POST",
    path: "/api/dead-man-switch/recipients",
    body: ["recipient_email", "recipient_name", "wrapped_recovery_key"],
    reads: ["recipient"],
  },
  dmsRemoveRecipient: {
    method: "DELETE",
    path: "/api/dead-man-switch/recipients/{id}",
    reads: ["success"],
  },
  dmsTransfers: { method: "GET", path: "/api/dead-man-switch/transfers", reads: ["transfers"] },
  dmsClaim: {
    method: "POST",
    path: "/api/dead-man-switch/transfers/{id}/claim",
    body: ["secret_phrase"],
    reads: ["wrapped_recovery_key", "owner_id", "released_at"],
  },
} as const satisfies Record<string, EndpointDef>;

export type EmergencyContact = WireResponse<"/api/vault/emergency", "get">["as_owner"][number];
export type ContactStatus = EmergencyContact["status"];
export type NewEmergencyContact = WireBody<"/api/vault/emergency", "post">;

export type SwitchStatus = WireResponse<"/api/dead-man-switch", "get">;
export type DeadManSwitch = NonNullable<SwitchStatus["switch"]>;
export type SwitchRecipient = SwitchStatus["recipients"][number];
export type SwitchSettings = WireBody<"/api/dead-man-switch", "post">;
export type NewSwitchRecipient = WireBody<"/api/dead-man-switch/recipients", "post">;
export type Transfer = WireResponse<"/api/dead-man-switch/transfers", "get">["transfers"][number];

export function emergencyApi(api: ApiClient) {
  const E = EMERGENCY_ENDPOINTS;
  return {
    list: () => api.requestAll(E.emergencyList),
    add: (body: NewEmergencyContact) => api.request(E.emergencyAdd, { body }),
    update: (id: string, wait_hours: number) =>
      api.request(E.emergencyUpdate, { params: { id }, body: { wait_hours } }),
    revoke: (id: string) => api.request(E.emergencyRevoke, { params: { id } }),
    accept: (token: string) => api.request(E.emergencyAccept, { body: { token } }),
    /** An invitation listed for this person's verified email (DECISIONS D21), accepted without its mailed link. */
    acceptListed: (contactId: string) =>
      api.request(E.emergencyAccept, { body: { contact_id: contactId } }),
    request: (contact_id: string) => api.request(E.emergencyRequest, { body: { contact_id } }),
    respond: (
      contact_id: string,
      action: WireBody<"/api/vault/emergency/respond", "post">["action"],
    ) => api.request(E.emergencyRespond, { body: { contact_id, action } }),
    access: (contact_id: string) => api.request(E.emergencyAccess, { query: { contact_id } }),
    vault: (id: string) => api.request(E.emergencyVault, { params: { id } }),
  };
}

export function deadManSwitchApi(api: ApiClient) {
  const E = DMS_ENDPOINTS;
  return {
    status: () => api.request(E.dmsStatus),
    save: (body: SwitchSettings) => api.request(E.dmsSave, { body }),
    remove: () => api.request(E.dmsDelete),
    checkIn: () => api.request(E.dmsCheckIn),
    addRecipient: (body: NewSwitchRecipient) => api.request(E.dmsAddRecipient, { body }),
    removeRecipient: (id: string) => api.request(E.dmsRemoveRecipient, { params: { id } }),
    transfers: () => api.request(E.dmsTransfers),
    claim: (id: string, secret_phrase?: string) =>
      api.request(E.dmsClaim, { params: { id }, body: secret_phrase ? { secret_phrase } : {} }),
  };
}
