import { z } from "zod";
import { base64String, hexString, queryInt } from "../../lib/validators";
import { hostHashes, matchHostHashes } from "./hosts";

/** D14: encrypted_data is at most 256 KB. */
export const MAX_ENCRYPTED_DATA = 256 * 1024;

export const blindIndex = hexString.min(1).max(256);
export const envelopeKey = base64String.min(1).max(8192);
export const envelopeData = base64String.min(1).max(MAX_ENCRYPTED_DATA);
export const webField = z.string().trim().max(2048);
export const tags = z.array(z.string().trim().min(1).max(100)).max(50);
export const searchTokens = z.array(z.string().min(1).max(256)).max(1000);

export const CreatePasswordBody = z.object({
  name: z.string().trim().min(1).max(500),
  wrapped_item_key: envelopeKey,
  encrypted_data: envelopeData,
  name_hash: blindIndex,
  username_hash: blindIndex,
  website: webField.optional(),
  url: webField.optional(),
  /** Accepted for compatibility and discarded: under V3 the category lives in encrypted_data. */
  category: z.string().max(100).optional(),
  domain_hash: blindIndex.optional(),
  strength: z.string().max(50).optional(),
  tags: tags.optional(),
  search_tokens: searchTokens.optional(),
  /** Blind hashes of the extra addresses' hosts (./hosts.ts); absent keeps none. */
  host_hashes: hostHashes.optional(),
  has_passkey: z.boolean().optional(),
  passkey_label: z.string().max(200).nullable().optional(),
  encryption_version: z.literal(3).optional(),
});
export type CreatePasswordInput = z.infer<typeof CreatePasswordBody>;

export const UpdatePasswordBody = z
  .object({
    name: z.string().trim().min(1).max(500),
    wrapped_item_key: envelopeKey,
    encrypted_data: envelopeData,
    name_hash: blindIndex,
    username_hash: blindIndex,
    website: webField.nullable(),
    url: webField.nullable(),
    category: z.string().max(100).nullable(),
    domain_hash: blindIndex.nullable(),
    strength: z.string().max(50).nullable(),
    tags,
    search_tokens: searchTokens,
    /** Replaces the entry's extra host hashes; absent leaves them as they are. */
    host_hashes: hostHashes,
    has_passkey: z.boolean(),
    passkey_label: z.string().max(200).nullable(),
    encryption_version: z.literal(3),
  })
  .partial()
  .refine((b) => Object.keys(b).length > 0, { message: "at least one field is required" });
export type UpdatePasswordInput = z.infer<typeof UpdatePasswordBody>;

export const ListPasswordsQuery = z.object({
  page: queryInt(1, 1_000_000, 1),
  limit: queryInt(1, 2000, 1000),
});

/** `host_hashes`: comma-separated blind hashes of the page's host and parents, for entries' extra addresses. */
export const MatchQuery = z.object({
  url: z.string().min(1).max(2048),
  host_hashes: matchHostHashes.optional(),
});

export const PasswordEntry = z.object({
  id: z.string(),
  user_id: z.string(),
  name: z.string(),
  website: z.string().nullable(),
  url: z.string().nullable(),
  username: z.string().nullable(),
  password: z.null(),
  notes: z.null(),
  category: z.null(),
  tags: z.array(z.string()),
  encryption_version: z.number().int(),
  wrapped_item_key: z.string().nullable(),
  encrypted_data: z.string().nullable(),
  domain_hash: z.string().nullable(),
  name_hash: z.string().nullable(),
  username_hash: z.string().nullable(),
  search_tokens: z.array(z.string()),
  share_count: z.number().int(),
  has_totp: z.boolean(),
  has_passkey: z.boolean(),
  passkey_label: z.string().nullable(),
  strength: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  deleted_at: z.string().nullable(),
});
export type PasswordEntry = z.infer<typeof PasswordEntry>;

export const ListPasswordsResponse = z.object({
  data: z.array(PasswordEntry),
  pagination: z.object({
    page: z.number().int(),
    limit: z.number().int(),
    total: z.number().int(),
  }),
});
export const CreatePasswordResponse = z.object({
  success: z.literal(true),
  data: z.object({
    id: z.string(),
    user_id: z.string(),
    name: z.string(),
    encryption_version: z.number().int(),
    password: z.null(),
    created_at: z.string(),
  }),
});
export const UpdatePasswordResponse = z.object({
  success: z.literal(true),
  data: z.object({ id: z.string(), updated_at: z.string() }),
});
export { SuccessResponse } from "../../kernel/schemas";
export const RevealResponse = z.object({
  envelope: z.object({
    wrappedItemKey: z.string(),
    encryptedData: z.string(),
    version: z.number().int(),
  }),
});
export const MatchResponse = z.object({
  matches: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      username_hash: z.string().nullable(),
      url: z.string().nullable(),
      wrapped_item_key: z.string().nullable(),
      encrypted_data: z.string().nullable(),
    }),
  ),
});
