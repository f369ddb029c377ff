/**
 * The automation endpoints the web client calls (mailboxes, discovery, reset, session shares,
 * identities), in the shape of api.ts's ENDPOINTS; client/test/openapi-contract checks them too.
 */
export const AUTOMATION_ENDPOINTS = {
  integrations: { method: "GET", path: "/api/user-integrations", reads: ["integrations"] },
  mailboxProviders: { method: "GET", path: "/api/integrations/providers", reads: ["providers"] },
  oauthAuth: { method: "GET", path: "/api/integrations/{provider}/auth", reads: ["authUrl"] },
  oauthDisconnect: {
    method: "POST",
    path: "/api/integrations/{provider}/disconnect",
    reads: ["success"],
  },
  imapConnect: {
    method: "POST",
    path: "/api/integrations/imap/connect",
    body: ["host", "port", "username", "password", "tls"],
    reads: ["success", "email", "status"],
  },
  imapVerify: {
    method: "POST",
    path: "/api/integrations/imap/verify",
    body: ["resend"],
    reads: ["success", "email", "status"],
  },
  imapDisconnect: { method: "POST", path: "/api/integrations/imap/disconnect", reads: ["success"] },
  accounts: {
    method: "GET",
    path: "/api/accounts",
    query: ["include_dismissed", "limit", "cursor"],
    reads: ["accounts", "stats", "next_cursor"],
  },
  scanAccounts: {
    method: "POST",
    path: "/api/accounts",
    body: ["email"],
    reads: ["accounts", "stats"],
  },
  patchAccount: {
    method: "PATCH",
    path: "/api/accounts",
    body: ["id", "dismissed"],
    reads: ["success", "account"],
  },
  addToVault: {
    method: "POST",
    path: "/api/accounts/add-to-vault",
    body: ["domains"],
    reads: ["created", "skipped"],
  },
  createSessionShare: {
    method: "POST",
    path: "/api/session-shares",
    body: [
      "accountId",
      "decryptedUsername",
      "decryptedPassword",
      "accessType",
      "durationMinutes",
      "maxViewers",
      "loginMethod",
      "watermarkEnabled",
    ],
    reads: ["id", "shareUrl", "status", "expiresAt", "serviceName", "estimatedCostCents"],
  },
  sessionShare: { method: "GET", path: "/api/session-shares/{id}", reads: ["session"] },
  // The body is a union of actions (DECISIONS D8), so OpenAPI shows no single property list.
  patchSessionShare: {
    method: "PATCH",
    path: "/api/session-shares/{id}",
    reads: ["success", "session"],
  },
  identities: {
    method: "GET",
    path: "/api/identities",
    query: ["status", "limit", "cursor"],
    reads: ["identities", "stats", "next_cursor"],
  },
  createIdentity: {
    method: "POST",
    path: "/api/identities",
    body: [
      "label",
      "service",
      "emailApiKey",
      "generateEmail",
      "emailProvider",
      "country",
      "gender",
    ],
    reads: ["success", "identity"],
  },
  deleteIdentity: { method: "DELETE", path: "/api/identities/{id}", reads: ["success"] },
  createReset: {
    method: "POST",
    path: "/api/tasks/reset",
    body: ["serviceUrl", "email", "passwordId", "clientPublicKey"],
    reads: ["taskId", "status"],
  },
  cancelTask: { method: "POST", path: "/api/tasks/{id}/cancel", reads: ["taskId", "status"] },
  taskOtp: { method: "POST", path: "/api/tasks/{id}/otp", body: ["code"], reads: ["accepted"] },
  job: {
    method: "GET",
    path: "/api/jobs/{id}",
    reads: ["id", "status", "service", "passwordId", "steps"],
  },
} as const;

/** Endpoints answered with text/event-stream (read with automation/sse.ts). */
export const STREAM_ENDPOINTS = {
  taskStream: { method: "GET", path: "/api/tasks/{id}/stream", reads: [] },
  chatReset: {
    method: "POST",
    path: "/api/chat/reset",
    body: ["message", "passwordId", "email", "clientPublicKey"],
    reads: [],
  },
} as const;
