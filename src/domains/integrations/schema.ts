import { z } from "zod";
import { OAUTH_PROVIDERS } from "./providers";

export const ProviderParam = z.object({ provider: z.enum(OAUTH_PROVIDERS) });

export const CallbackQuery = z.object({
  code: z.string().min(1).max(2048).optional(),
  state: z.string().min(1).max(512).optional(),
  error: z.string().max(256).optional(),
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
export const ImapConnectResponse = z.object({ success: z.literal(true), email: z.string() });
export const Integration = z.object({
  provider: z.enum([...OAUTH_PROVIDERS, "imap"]),
  email: z.string(),
  connectedAt: z.string(),
  status: z.enum(["active", "disconnected"]),
});
export const IntegrationsResponse = z.object({ integrations: z.array(Integration) });
