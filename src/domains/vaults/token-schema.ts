import { z } from "zod";
import { SyncEntry } from "../sync";

/** A token id is chosen by the client (its key wrap is bound to it before the server answers). */
const tokenId = z.string().uuid();
const MAX_DAYS = 366;

export const TokenParam = z.object({ token_id: tokenId });
export const VaultTokenParam = z.object({ id: z.string().min(1).max(128) });

export const CreateTokenBody = z
  .object({
    token_id: tokenId,
    name: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .regex(/^[^\p{Cc}]+$/u, "no control characters"),
    /** An instant in the future, at most a year (and a day) away. */
    expires_at: z.string().datetime(),
    key_version: z.number().int().min(1).max(1_000_000),
    /** The vault key wrapped under the token's wrapping key (the client's ciphertext). */
    wrapped_key: z.string().min(1).max(4096),
    /** SHA-256 (hex) of the authenticator the token presents; the server never gets the secret. */
    auth_hash: z.string().regex(/^[0-9a-f]{64}$/),
  })
  .superRefine((b, ctx) => {
    const at = Date.parse(b.expires_at);
    const now = Date.now();
    if (!(at > now + 60_000) || at > now + MAX_DAYS * 86_400_000)
      ctx.addIssue({
        code: "custom",
        path: ["expires_at"],
        message: `must be between a minute and ${MAX_DAYS} days from now`,
      });
  });
export type CreateTokenInput = z.output<typeof CreateTokenBody>;

export const TokenState = z.enum(["active", "expired", "revoked"]);
export const TokenShape = z.object({
  id: z.string(),
  vault_id: z.string(),
  name: z.string(),
  key_version: z.number().int(),
  state: TokenState,
  expires_at: z.string(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  /** `owner`, `key_rotated` (the vault's key changed: make a new token), `member_left`. */
  revoked_reason: z.string().nullable(),
});
export const TokenResponse = z.object({ token: TokenShape });
export const TokenListResponse = z.object({ tokens: z.array(TokenShape) });

export const ReadsQuery = z.object({
  token_id: tokenId.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
export const ReadShape = z.object({
  id: z.string(),
  token_id: z.string(),
  token_name: z.string(),
  vault_id: z.string(),
  reason: z.string().nullable(),
  entries: z.number().int(),
  created_at: z.string(),
});
export const ReadsResponse = z.object({ reads: z.array(ReadShape) });

/** What a token reads: its vault's name and key copy (both ciphertext) and the live entries. */
export const TokenReadResponse = z.object({
  token: z.object({
    id: z.string(),
    name: z.string(),
    vault_id: z.string(),
    expires_at: z.string(),
  }),
  vault: z.object({ id: z.string(), sealed_name: z.string(), key_version: z.number().int() }),
  wrapped_key: z.string(),
  entries: z.array(SyncEntry),
});

/** `X-Vault-Token: <id>.<authenticator>`: the token's id and its derived authenticator (base64url). */
export const TOKEN_HEADER = /^([0-9a-f-]{36})\.([A-Za-z0-9_-]{43})$/;
/** `X-Vault-Reason`: why the machine reads, in the log as given; printable, at most 200 characters. */
export const REASON = z
  .string()
  .max(200)
  .regex(/^[^\p{Cc}]*$/u, "no control characters");
