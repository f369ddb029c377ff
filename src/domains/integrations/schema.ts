import { z } from "zod";
import { MAILBOX_PROVIDERS, OAUTH_PROVIDERS } from "./providers";

export const ProviderParam = z.object({ provider: z.enum(OAUTH_PROVIDERS) });

export const CallbackQuery = z.object({
  code: z.string().min(1).max(2048).optional(),
  state: z.string().min(1).max(512).optional(),
  error: z.string().max(256).optional(),
  /** Set by the one same-site bounce that brings the session cookie along (see the route). */
  resumed: z.literal("1").optional(),
});

const noControl = (v: string) => !/[\r\n\0]/.test(v);

export const ImapConnectBody = z.object({
  host: z.string().trim().min(1).max(253),
  port: z.number().int().min(1).max(65535),
  username: z.string().min(1).max(320).refine(noControl, "must not contain CR, LF or NUL"),
  password: z.string().min(1).max(1024).refine(noControl, "must not contain CR, LF or NUL"),
  tls: z.boolean(),
});

export const AuthUrlResponse = z.object({ authUrl: z.url() });
export { SuccessResponse } from "../../kernel/schemas";
export const RefreshResponse = z.object({ success: z.literal(true), expiresAt: z.string() });
/** The spec's {success, email}, and the mailbox's status: pending_verification until its check message is read back. */
export const ImapConnectResponse = z.object({
  success: z.literal(true),
  email: z.string(),
  status: z.enum(["pending_verification", "active", "disconnected"]),
});
export const ImapVerifyBody = z.object({ resend: z.boolean().optional() }).strict();
export const Integration = z.object({
  provider: z.enum([...OAUTH_PROVIDERS, "imap"]),
  email: z.string(),
  connectedAt: z.string(),
  status: z.enum(["active", "disconnected", "pending_verification"]),
});
export const IntegrationsResponse = z.object({ integrations: z.array(Integration) });
/** Which mailboxes this deployment can connect; an unconfigured one is listed with configured:false so the page can say why it is missing. */
export const MailboxProvidersResponse = z.object({
  providers: z.array(z.object({ provider: z.enum(MAILBOX_PROVIDERS), configured: z.boolean() })),
});
