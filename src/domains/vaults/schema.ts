import { z } from "zod";
import { emailAddress } from "../../kernel/schemas";
import { NextCursor, PageQuery } from "../../kernel/pagination";
import { CreatePasswordBody } from "../passwords";

const opaque = (max: number) => z.string().min(1).max(max);
/** Ciphertext a member's client made (the sealed name, a member's copy of the vault key). */
const sealed = opaque(4096);
const wrapped = opaque(16_384);
const keyVersion = z.number().int().min(1).max(1_000_000);
const id = z.string().min(1).max(128);

export const Role = z.enum(["owner", "manager", "editor", "viewer"]);
export const MemberState = z.enum(["pending", "accepted", "wrapped"]);

export const VaultParam = z.object({ id });
export const MemberParam = z.object({ id, user_id: id });
export const EntryParam = z.object({ id, entry_id: id });
export const InvitationParam = z.object({ id, invitation_id: id });

export const CreateBody = z.object({ sealed_name: sealed, wrapped_key: wrapped });
export const RenameBody = z.object({ sealed_name: sealed });
/** What happens to the vault's entries when it is deleted: the client moves them first, or says delete. */
export const DeleteQuery = z.object({ entries: z.enum(["delete", "refuse"]).default("refuse") });
export const TransferBody = z.object({ user_id: id });
export const InviteBody = z.object({ email: emailAddress(254), role: Role });
export const WrapBody = z.object({ key_version: keyVersion, wrapped_key: wrapped });
export const RoleBody = z.object({ role: Role });

export const VaultShape = z.object({
  id: z.string(),
  sealed_name: z.string(),
  key_version: z.number().int(),
  role: Role,
  /** The caller's own state: `wrapped` once their copy of the current key is there. */
  member_state: MemberState,
  members: z.number().int(),
  created_by: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export const VaultResponse = z.object({ vault: VaultShape });
export const VaultListResponse = z.object({ vaults: z.array(VaultShape) });

export const InvitationShape = z.object({
  id: z.string(),
  vault_id: z.string(),
  email: z.string(),
  role: Role,
  invited_by: z.string(),
  inviter_email: z.string().nullable(),
  expires_at: z.string(),
  created_at: z.string(),
});
export const InvitationResponse = z.object({ invitation: InvitationShape });
export const InvitationListResponse = z.object({ invitations: z.array(InvitationShape) });

export const MemberShape = z.object({
  user_id: z.string().nullable(),
  email: z.string().nullable(),
  role: Role,
  state: MemberState,
  key_version: z.number().int().nullable(),
  invitation_id: z.string().nullable(),
});
export const MemberListResponse = z.object({
  key_version: z.number().int(),
  members: z.array(MemberShape),
});
export const MemberResponse = z.object({ member: MemberShape });
export const KeyResponse = z.object({ key_version: z.number().int(), wrapped_key: z.string() });

export const BeginRotationBody = z.object({ from_version: keyVersion });
export const StageBody = z.object({
  version: keyVersion,
  entries: z
    .array(
      z.object({
        id,
        updated_at: z.string().min(1).max(64),
        wrapped_item_key: CreatePasswordBody.shape.wrapped_item_key,
        encrypted_data: CreatePasswordBody.shape.encrypted_data,
      }),
    )
    .min(1)
    .max(100),
});
export const RotationWrapsBody = z.object({
  version: keyVersion,
  wraps: z
    .array(z.object({ user_id: id, wrapped_key: wrapped }))
    .min(1)
    .max(100),
});
export const CommitBody = z.object({ version: keyVersion });
export const RotationShape = z.object({
  key_version: z.number().int(),
  /** The version being made, or null when no rotation is in progress. */
  rotating_to: z.number().int().nullable(),
  /** Entries without an up-to-date copy for `rotating_to` (at most 1,000 a call). */
  remaining: z.array(z.object({ id: z.string(), updated_at: z.string() })),
  /** Members that already have a copy of the new version. */
  wrapped_members: z.array(z.string()),
});
export const RotationResponse = z.object({ rotation: RotationShape });
export const StageResponse = z.object({ stale: z.array(z.string()) });

/** An entry of a shared vault: the personal entry's fields less extra host hashes, plus the key version. */
const entryFields = CreatePasswordBody.omit({ host_hashes: true });
export const CreateEntryBody = entryFields.extend({ key_version: keyVersion });
export const UpdateEntryBody = entryFields
  .partial()
  .extend({ key_version: keyVersion })
  .refine((b) => Object.keys(b).length > 1, { message: "at least one field is required" });
export type CreateEntryInput = z.output<typeof CreateEntryBody>;
export type UpdateEntryInput = z.output<typeof UpdateEntryBody>;
/** A move carries the entry re-encrypted for its destination (entry data is bound to its vault). */
export const MoveBody = entryFields.extend({
  from_vault: id.nullable(),
  to_vault: id.nullable(),
  entry_id: id,
  /** The destination vault's key version; absent when the destination is the personal vault. */
  key_version: keyVersion.optional(),
});
export type MoveInput = z.output<typeof MoveBody>;
export const EntryWriteResponse = z.object({ id: z.string(), updated_at: z.string() });

export const ActivityQuery = PageQuery;
export const ActivityResponse = z.object({
  activity: z.array(
    z.object({
      id: z.string(),
      actor_id: z.string(),
      action: z.string(),
      target_id: z.string().nullable(),
      created_at: z.string(),
    }),
  ),
  next_cursor: NextCursor,
});
export { SuccessResponse } from "../../kernel/schemas";
