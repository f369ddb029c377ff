import { z } from "zod";
import { base64String } from "../../lib/validators";

/** The rounds a client derives with (core/crypto KDF_FLOOR and KDF_CEILING): nothing else is stored. */
export const KDF_MIN = 600_000;
export const KDF_MAX = 10_000_000;

const counter = z.number().int().min(1).max(1_000_000);

/**
 * A wrap of the account key (docs/crypto.md, "Key hierarchy"). `revision` must be the stored one
 * plus one (1 for the first); `key_version` may not go below the stored one.
 */
export const PutAccountKeyBody = z.object({
  key_version: counter,
  revision: counter,
  kdf_iterations: z.number().int().min(KDF_MIN).max(KDF_MAX),
  wrapped_key: base64String.min(16).max(512),
});

const AccountKey = z.object({
  key_version: z.number().int(),
  revision: z.number().int(),
  kdf_iterations: z.number().int(),
  wrapped_key: z.string(),
  updated_at: z.string(),
});
/** `account_key` is null before the account has one (a 200: every sign-in of such an account asks). */
export const AccountKeyResponse = z.object({ account_key: AccountKey.nullable() });
