/**
 * The emergency access and dead man's switch endpoints the web app uses (checked against OpenAPI
 * like ENDPOINTS, client/test/openapi-contract.test.ts).
 */
import type { ApiClient, EndpointDef, SyncEntry } from "./api";

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

export type ContactStatus =
  | "pending_invite"
  | "active"
  | "access_requested"
  | "access_granted"
  | "access_denied"
  | "access_expired"
  | "revoked";
export type EmergencyContact = {
  id: string;
  owner_id: string;
  owner_email?: string | null;
  contact_email: string;
  contact_user_id: string | null;
  status: ContactStatus;
  wait_hours: number;
  requested_at: string | null;
  grant_at: string | null;
  granted_at: string | null;
  expires_at: string | null;
  created_at: string;
};

export type SwitchSettings = {
  enabled: boolean;
  inactivity_days: number;
  notify_at_days: number[];
  notify_via: ("email" | "push")[];
  confirmation_required: boolean;
  secret_phrase: string | null;
};
export type DeadManSwitch = Omit<SwitchSettings, "secret_phrase"> & {
  id: string;
  last_check_in: string;
  next_trigger_at: string | null;
  status: "idle" | "warning" | "triggered" | "disabled";
};
export type SwitchRecipient = {
  id: string;
  recipient_email: string;
  recipient_name: string | null;
  status: "pending" | "awaiting_confirmation" | "released";
  wrapped_recovery_key: string;
  created_at: string;
};
export type SwitchStatus = {
  switch: DeadManSwitch | null;
  recipients: SwitchRecipient[];
  recent_logs: { action: string; timestamp: string; details: Record<string, unknown> }[];
  days_remaining: number | null;
  is_warning: boolean;
};
export type Transfer = {
  id: string;
  owner_id: string;
  recipient_email: string;
  recipient_name: string | null;
  status: SwitchRecipient["status"];
  released_at: string | null;
  requires_secret_phrase: boolean;
};

export function emergencyApi(api: ApiClient) {
  const E = EMERGENCY_ENDPOINTS;
  type One = { contact: EmergencyContact };
  return {
    list: () =>
      api.requestAll<{ as_owner: EmergencyContact[]; as_contact: EmergencyContact[] }>(
        E.emergencyList,
      ),
    add: (body: {
      email: string;
      wait_hours: number;
      wrapped_access_key: string;
      invite_salt: string;
    }) => api.request<One>(E.emergencyAdd, { body }),
    update: (id: string, wait_hours: number) =>
      api.request<One>(E.emergencyUpdate, { params: { id }, body: { wait_hours } }),
    revoke: (id: string) => api.request<unknown>(E.emergencyRevoke, { params: { id } }),
    accept: (token: string) => api.request<One>(E.emergencyAccept, { body: { token } }),
    /** An invitation listed for this person's verified email (DECISIONS D21), accepted without its mailed link. */
    acceptListed: (contactId: string) =>
      api.request<One>(E.emergencyAccept, { body: { contact_id: contactId } }),
    request: (contact_id: string) => api.request<One>(E.emergencyRequest, { body: { contact_id } }),
    respond: (contact_id: string, action: "approve" | "deny") =>
      api.request<One>(E.emergencyRespond, { body: { contact_id, action } }),
    access: (contact_id: string) =>
      api.request<{ wrapped_access_key: string; invite_salt: string }>(E.emergencyAccess, {
        query: { contact_id },
      }),
    vault: (id: string) =>
      api.request<{ owner_email: string | null; owner_id: string; entries: SyncEntry[] }>(
        E.emergencyVault,
        { params: { id } },
      ),
  };
}

export function deadManSwitchApi(api: ApiClient) {
  const E = DMS_ENDPOINTS;
  return {
    status: () => api.request<SwitchStatus>(E.dmsStatus),
    save: (body: Partial<SwitchSettings>) =>
      api.request<{ success: true; switch: DeadManSwitch }>(E.dmsSave, { body }),
    remove: () => api.request<unknown>(E.dmsDelete),
    checkIn: () =>
      api.request<{ success: true; next_trigger_at: string; days_until_trigger: number }>(
        E.dmsCheckIn,
      ),
    addRecipient: (body: {
      recipient_email: string;
      recipient_name?: string;
      wrapped_recovery_key: string;
    }) => api.request<{ recipient: SwitchRecipient }>(E.dmsAddRecipient, { body }),
    removeRecipient: (id: string) => api.request<unknown>(E.dmsRemoveRecipient, { params: { id } }),
    transfers: () => api.request<{ transfers: Transfer[] }>(E.dmsTransfers),
    claim: (id: string, secret_phrase?: string) =>
      api.request<{ wrapped_recovery_key: string; owner_id: string; released_at: string }>(
        E.dmsClaim,
        { params: { id }, body: secret_phrase ? { secret_phrase } : {} },
      ),
  };
}
