import { z } from "zod";
import { emailAddress } from "../../kernel/schemas";
import { NextCursor, PageQuery } from "../../kernel/pagination";
import { base64String, isoTimestamp } from "../../lib/validators";
import { MAX_ENCRYPTED_DATA } from "../passwords";

const email = emailAddress(320).transform((e) => e.trim().toLowerCase());

export const CreateShareBody = z.object({
  accountId: z.string().min(1).max(128),
  recipientEmail: email,
  permission: z.enum(["read", "write"]).default("read"),
  expiresAt: isoTimestamp.optional(),
  wrapped_vault_key_invite: base64String.min(1).max(8192).optional(),
  invite_token_salt: z.string().min(1).max(512).optional(),
});
export type CreateShareInput = z.infer<typeof CreateShareBody>;

export const ListSharesQuery = PageQuery.extend({
  type: z.enum(["owned", "received"]),
  accountId: z.string().min(1).max(128).optional(),
});

export const PatchShareBody = z
  .object({
    status: z.enum(["active", "revoked"]).optional(),
    permission: z.enum(["read", "write"]).optional(),
  })
  .refine((b) => b.status !== undefined || b.permission !== undefined, {
    message: "status or permission is required",
  });
export type PatchShareInput = z.infer<typeof PatchShareBody>;

export const ViewLogBody = z.object({ action: z.enum(["password_viewed", "password_copied"]) });

/** What a write-permitted recipient may change: the ciphertext under the same item key, and labels. */
export const UpdateSharedAccountBody = z
  .object({
    encrypted_data: base64String.min(1).max(MAX_ENCRYPTED_DATA),
    name: z.string().trim().min(1).max(500),
    website: z.string().trim().max(2048).nullable(),
    url: z.string().trim().max(2048).nullable(),
  })
  .partial()
  .refine((b) => Object.keys(b).length > 0, { message: "at least one field is required" });
export type UpdateSharedAccountInput = z.infer<typeof UpdateSharedAccountBody>;

const P256PublicJwk = z.object({
  kty: z.literal("EC"),
  crv: z.literal("P-256"),
  x: base64String.min(43).max(44),
  y: base64String.min(43).max(44),
});
export const PutSharingKeyBody = z.object({
  publicKey: P256PublicJwk,
  wrappedPrivateKey: base64String.min(16).max(4096).optional(),
});
export const SharingKeyQuery = z.object({ email: email.optional() });

export const ShareAccount = z.object({
  id: z.string(),
  name: z.string(),
  website: z.string().nullable(),
  url: z.string().nullable(),
  encrypted_data: z.string().nullable().optional(),
  wrapped_item_key: z.string().nullable().optional(),
});

export const Share = z.object({
  id: z.string(),
  account_id: z.string(),
  owner_id: z.string(),
  recipient_id: z.string().nullable(),
  recipient_email: z.string(),
  status: z.enum(["pending", "active", "revoked"]),
  permission: z.enum(["read", "write"]),
  expires_at: z.string().nullable(),
  accepted_at: z.string().nullable(),
  created_at: z.string(),
  invite_token_salt: z.string().nullable().optional(),
  /** In a recipient's listing: who shared it (the sharer's registered sharing email), null if unknown. */
  owner_email: z.string().nullable().optional(),
  account: ShareAccount.optional(),
});
export type Share = z.infer<typeof Share>;

export const CreateShareResponse = z.object({ success: z.literal(true), share: Share });
export const ListSharesResponse = z.object({
  shares: z.array(Share),
  setup_required: z.boolean(),
  next_cursor: NextCursor,
});
export const ShareResponse = z.object({ success: z.literal(true), share: Share });
export { SuccessResponse } from "../../kernel/schemas";
export const ViewLogResponse = z.object({
  success: z.literal(true),
  action: z.string(),
  logged_at: z.string(),
});
export const SharingKeyResponse = z.object({
  publicKey: P256PublicJwk,
  created_at: z.string(),
  updated_at: z.string(),
  wrappedPrivateKey: z.string().nullable().optional(),
});
export const ViewLogListResponse = z.object({
  views: z.array(
    z.object({ action: z.enum(["password_viewed", "password_copied"]), logged_at: z.string() }),
  ),
});
export const UpdateSharedAccountResponse = z.object({
  success: z.literal(true),
  account: z.object({ id: z.string(), updated_at: z.string() }),
});
