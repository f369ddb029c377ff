import { z } from "zod";
import { isoTimestamp } from "../../lib/validators";
import {
  blindIndex,
  envelopeData,
  envelopeKey,
  hostHashes,
  PasswordEntry,
  searchTokens,
  tags,
  webField,
} from "../passwords";

export const MAX_MUTATIONS = 100;

/** `resume`: the token of the last page a client stored of a pull cut off part-way (./resume.ts). */
export const SyncPullQuery = z.object({
  since: isoTimestamp.optional(),
  resume: z.string().max(300).optional(),
});

/** Client-generated ids: UUIDs in practice; any short URL-safe token is accepted. */
export const entryId = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,128}$/, "must be 1 to 128 characters of A-Z a-z 0-9 . _ : -");

/**
 * The push envelope. Only what is needed to answer per mutation is checked here (an array of at
 * most 100 objects, each naming its id); everything else about a mutation is judged on its own, so
 * one bad mutation fails alone (see docs/decisions/sync.md, "Push").
 */
export const SyncPushBody = z.object({
  mutations: z.array(z.looseObject({ id: z.string().min(1).max(128) })).max(MAX_MUTATIONS),
});

const mutationFields = {
  name: z.string().trim().min(1).max(500),
  wrapped_item_key: envelopeKey,
  encrypted_data: envelopeData,
  encryption_version: z.literal(3, "only encryption version 3 is accepted"),
  website: webField.nullable(),
  url: webField.nullable(),
  tags,
  name_hash: blindIndex.nullable(),
  username_hash: blindIndex.nullable(),
  domain_hash: blindIndex.nullable(),
  search_tokens: searchTokens,
  host_hashes: hostHashes,
  strength: z.string().max(50).nullable(),
  has_passkey: z.boolean(),
  passkey_label: z.string().max(200).nullable(),
};

export const CreateData = z.object({
  ...mutationFields,
  encryption_version: mutationFields.encryption_version.optional(),
  website: mutationFields.website.optional(),
  url: mutationFields.url.optional(),
  tags: tags.optional(),
  name_hash: mutationFields.name_hash.optional(),
  username_hash: mutationFields.username_hash.optional(),
  domain_hash: mutationFields.domain_hash.optional(),
  search_tokens: searchTokens.optional(),
  host_hashes: hostHashes.optional(),
  strength: mutationFields.strength.optional(),
  has_passkey: mutationFields.has_passkey.optional(),
  passkey_label: mutationFields.passkey_label.optional(),
});
export type CreateData = z.infer<typeof CreateData>;

export const UpdateData = z
  .object(mutationFields)
  .partial()
  .refine((d) => Object.keys(d).length > 0, { message: "at least one field is required" });
export type UpdateData = z.infer<typeof UpdateData>;

const base = { id: entryId, clientUpdatedAt: isoTimestamp };
export const Mutation = z.discriminatedUnion("action", [
  z.object({ ...base, action: z.literal("create"), data: CreateData }),
  z.object({ ...base, action: z.literal("update"), data: UpdateData }),
  z.object({ ...base, action: z.literal("delete"), data: z.unknown().optional() }),
]);
export type Mutation = z.infer<typeof Mutation>;

/**
 * A live entry as sync carries it: the spec's fields (id, name, _deleted, wrapped_item_key,
 * encrypted_data, updated_at) plus the plaintext metadata a client lists entries by. Blind indexes
 * stay on the server, where search runs.
 */
export const SyncEntry = PasswordEntry.pick({
  id: true,
  name: true,
  website: true,
  url: true,
  username: true,
  tags: true,
  encryption_version: true,
  wrapped_item_key: true,
  encrypted_data: true,
  has_totp: true,
  has_passkey: true,
  created_at: true,
  updated_at: true,
}).extend({ _deleted: z.literal(false) });
export const Tombstone = z.object({
  id: z.string(),
  _deleted: z.literal(true),
  deleted_at: z.string(),
});
export type SyncEntry = z.infer<typeof SyncEntry>;
export type Tombstone = z.infer<typeof Tombstone>;
export const SyncChange = z.union([SyncEntry, Tombstone]);

export const SyncPullResponse = z.object({
  changes: z.array(SyncChange),
  serverTimestamp: z.string(),
  fullSyncRequired: z.boolean(),
});

export const MutationResult = z.object({
  id: z.string(),
  status: z.enum(["applied", "conflict_server_wins", "failed"]),
  serverEntry: SyncChange.optional(),
  error: z.string().optional(),
  code: z.string().optional(),
  details: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
});
export type MutationResult = z.infer<typeof MutationResult>;

export const SyncPushResponse = z.object({
  results: z.array(MutationResult),
  serverTimestamp: z.string(),
});
