/**
 * Every limit of the spec's Limits table, in one place. `by: "ip"` counts per client IP even for a
 * signed-in caller (the spec says so for the admin registry); otherwise per user when authenticated
 * and per IP when not (DECISIONS D5). `failClosed` rules refuse the request when the limiter is down;
 * an `ownBudget` rule replaces the general limit for its route instead of adding to it.
 */
export type RateRule = {
  limit: number;
  windowSeconds: number;
  by?: "user" | "ip";
  failClosed?: boolean;
  ownBudget?: boolean;
};

export const RATE_RULES = {
  general: { limit: 100, windowSeconds: 60 },
  auth: { limit: 10, windowSeconds: 15 * 60 },
  reset_tasks: { limit: 5, windowSeconds: 5 * 60 },
  two_factor_enroll: { limit: 5, windowSeconds: 15 * 60 },
  passwords: { limit: 30, windowSeconds: 60 },
  password_reveal: { limit: 20, windowSeconds: 60, failClosed: true },
  sync_pull: { limit: 60, windowSeconds: 60 },
  sync_push: { limit: 30, windowSeconds: 60 },
  /**
   * Not in the spec: live-sync connections opened. Every page a person opens connects once, so a
   * person with a few tabs and a phone opens dozens a minute; the connection is what spares them
   * polling, so it has a budget of its own outside the general 100 (docs/decisions/client.md,
   * "Client: a busy person stays within the rate limits"). A reconnecting client backs off well below it.
   */
  sync_live: { limit: 120, windowSeconds: 60, ownBudget: true },
  sharing_create: { limit: 20, windowSeconds: 60 },
  sharing_access: { limit: 30, windowSeconds: 60 },
  session_share_create: { limit: 10, windowSeconds: 60 * 60 },
  dead_man_switch_post: { limit: 10, windowSeconds: 60, failClosed: true },
  dead_man_switch_check_in: { limit: 10, windowSeconds: 60 },
  dead_man_switch_recipients: { limit: 30, windowSeconds: 60, failClosed: true },
  emergency_add: { limit: 5, windowSeconds: 60 },
  vault_create: { limit: 10, windowSeconds: 60 },
  vault_invite: { limit: 20, windowSeconds: 60 },
  emergency_request: { limit: 5, windowSeconds: 60 },
  emergency_respond: { limit: 5, windowSeconds: 60 },
  emergency_accept: { limit: 5, windowSeconds: 60 },
  emergency_revoke: { limit: 5, windowSeconds: 60 },
  emergency_update: { limit: 5, windowSeconds: 60 },
  identities_create: { limit: 10, windowSeconds: 60 },
  identities_write: { limit: 30, windowSeconds: 60 },
  devices_register: { limit: 30, windowSeconds: 60 },
  devices_update: { limit: 30, windowSeconds: 60 },
  devices_revoke: { limit: 30, windowSeconds: 60 },
  notifications_create: { limit: 30, windowSeconds: 60 },
  notifications_clear: { limit: 30, windowSeconds: 60 },
  // Not in the spec: marking read (docs/decisions/client.md, "Client: entry tools and account pages"); as many as a person clicking through the centre.
  notifications_update: { limit: 60, windowSeconds: 60 },
  // Not in the spec: Web Push subscriptions (docs/decisions/client.md, "Client: entry tools and account pages"); a browser subscribes once per visit at most.
  push_subscribe: { limit: 20, windowSeconds: 60 },
  admin_registry_read: { limit: 30, windowSeconds: 60, by: "ip" },
  admin_registry_write: { limit: 10, windowSeconds: 60, by: "ip" },
  // Not in the spec: backups and restores, driven step by step by scripts/restore.mjs.
  admin_backup: { limit: 120, windowSeconds: 60, by: "ip" },
  discovery_scan: { limit: 5, windowSeconds: 60 * 60 },
  // Not in the spec: each sign-in discovery makes the server fetch a URL the caller chose, so it has
  // a budget of its own, per user and refused while the limiter is down (a person checks a few sites).
  // Not in the spec: each check opens an IMAP session and a resend mails the address, so a budget of its own.
  imap_verify: { limit: 20, windowSeconds: 15 * 60 },
  sign_in_discovery: { limit: 20, windowSeconds: 60 * 60, failClosed: true },
  accounts_scan: { limit: 30, windowSeconds: 60 },
  accounts_patch: { limit: 60, windowSeconds: 60 },
  accounts_add_to_vault: { limit: 30, windowSeconds: 60 },
  attachments_upload: { limit: 10, windowSeconds: 60 * 60 },
  attachments_download: { limit: 30, windowSeconds: 60 },
  attachments_list: { limit: 30, windowSeconds: 60 },
  attachments_delete: { limit: 30, windowSeconds: 60 },
  // Not in the spec: the breach check asks one hash range per distinct password prefix, so a vault
  // of a few hundred entries makes a few hundred reads at once. They have a budget of their own,
  // outside the general 100 a minute (`ownBudget`), so a health check never starves the rest of the app.
  breach_range: { limit: 600, windowSeconds: 60, ownBudget: true },

  // Not in the spec: secure links (docs/decisions/sharing.md, "Sharing: secure links (a secret or a file for anyone, the key in the link)"). Creating stores up to a
  // file's worth of bytes; opening is public, so it is counted per IP and refused while the limiter
  // is down (the passphrase lock holds the rest).
  links_create: { limit: 30, windowSeconds: 60 * 60 },
  links_manage: { limit: 60, windowSeconds: 60 },
  links_open: { limit: 30, windowSeconds: 60, by: "ip", failClosed: true },
  // Each ask may mail a code: a few per IP in ten minutes (the link has its own cap besides).
  links_code: { limit: 5, windowSeconds: 10 * 60, by: "ip", failClosed: true },

  // Not in the spec: machine tokens (docs/cli.md, "Tokens for machines and agents"). A token's read
  // carries no sign-in, so it is counted per IP and refused while the limiter is down.
  vault_tokens: { limit: 60, windowSeconds: 60 },
  vault_token_read: { limit: 60, windowSeconds: 60, by: "ip", failClosed: true },
} as const satisfies Record<string, RateRule>;

export type RateRuleName = keyof typeof RATE_RULES;
