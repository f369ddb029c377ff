import { z } from "zod";
import { hostHashes } from "./hosts";
import { blindIndex, envelopeData, envelopeKey, searchTokens, tags, webField } from "./schema";

/** Import and export of whole vaults (pre-encrypted V3 entries): the entry domain's own transfer format. */
export const MAX_IMPORT_ENTRIES = 5000;
export const IMPORT_BATCH_SIZE = 50;
export const IMPORT_BODY_LIMIT = 12 * 1024 * 1024;
export const IMPORT_PROVIDERS = [
  "source_browser",
  "source_mgr_1",
  "source_mgr_2",
  "source_mgr_3",
  "source_mgr_4",
  "generic",
] as const;

export const ImportEntry = z.object({
  /**
   * The id the entry is stored under. A client chooses it when it binds the envelope to the entry
   * (docs/decisions/client.md, "Client: entry tools and account pages"); the export carries it so the file imports back to the same
   * place. An id already taken is skipped, not overwritten.
   */
  id: z.uuid().optional(),
  wrapped_item_key: envelopeKey,
  encrypted_data: envelopeData,
  domain_hash: blindIndex.nullable().optional(),
  name_hash: blindIndex.nullable().optional(),
  username_hash: blindIndex.nullable().optional(),
  search_tokens: searchTokens.optional(),
  host_hashes: hostHashes.optional(),
  encryption_version: z.literal(3, "only encryption version 3 is accepted").optional(),
  name: z.string().trim().min(1).max(500).optional(),
  website: webField.nullable().optional(),
  url: webField.nullable().optional(),
  tags: tags.optional(),
  strength: z.string().max(50).nullable().optional(),
  has_passkey: z.boolean().optional(),
  passkey_label: z.string().max(200).nullable().optional(),
});
export type ImportEntry = z.infer<typeof ImportEntry>;

export const ImportBody = z.object({
  entries: z.array(ImportEntry).min(1).max(MAX_IMPORT_ENTRIES),
  provider: z.enum(IMPORT_PROVIDERS),
});

export const ImportResponse = z.object({
  success: z.boolean(),
  imported: z.number().int(),
  encryption_version: z.literal(3),
  errors: z.array(z.string()),
});

export const ExportResponse = z.object({
  format: z.literal("credential-vault-export"),
  version: z.literal(1),
  exported_at: z.string(),
  provider: z.literal("generic"),
  encryption_version: z.literal(3),
  count: z.number().int(),
  skipped_placeholders: z.number().int(),
  entries: z.array(ImportEntry),
});

/** The sign-in age a plaintext export needs, from trusted devices too (seconds). */
export const PLAIN_EXPORT_MAX_AGE = 300;

export const PlainExportResponse = z.object({ success: z.literal(true) });
