import { z } from "zod";
import { NextCursor, PageQuery } from "../../kernel/pagination";

export const IDENTITY_STATUSES = ["active", "paused", "nuked"] as const;

export const CreateIdentityBody = z.object({
  label: z.string().trim().max(200).optional(),
  service: z.string().trim().max(200).optional(),
  emailApiKey: z.string().min(1).max(512).optional(),
  notes: z.string().max(5000).optional(),
  generateEmail: z.boolean().optional(),
  generatePhone: z.boolean().optional(),
  emailProvider: z.enum(["alias_provider_a", "alias_provider_b"]).default("alias_provider_a"),
  country: z.enum(["US", "GB", "CA"]).default("US"),
  gender: z.enum(["male", "female", "any"]).default("any"),
});
export type CreateIdentityInput = z.output<typeof CreateIdentityBody>;

const nullableText = (max: number) => z.string().trim().max(max).nullable().optional();

export const UpdateIdentityBody = z
  .object({
    status: z.enum(IDENTITY_STATUSES).optional(),
    label: nullableText(200),
    notes: z.string().max(5000).nullable().optional(),
    service: nullableText(200),
    used_for_service: nullableText(200),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), {
    message: "give a status or at least one metadata field",
    path: ["body"],
  });
export type UpdateIdentityInput = z.output<typeof UpdateIdentityBody>;

export const ListIdentitiesQuery = PageQuery.extend({
  status: z.enum(IDENTITY_STATUSES).optional(),
});

export const Identity = z.object({
  id: z.string(),
  user_id: z.string(),
  display_name: z.string().nullable(),
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  username: z.string().nullable(),
  email_alias: z.string().nullable(),
  phone_number: z.string().nullable(),
  date_of_birth: z.string().nullable(),
  gender: z.string().nullable(),
  address_line1: z.string().nullable(),
  address_city: z.string().nullable(),
  address_state: z.string().nullable(),
  address_zip: z.string().nullable(),
  address_country: z.string().nullable(),
  status: z.enum(IDENTITY_STATUSES),
  label: z.string().nullable(),
  notes: z.string().nullable(),
  used_for_service: z.string().nullable(),
  created_at: z.string(),
});
export type IdentityView = z.infer<typeof Identity>;

export const IdentityStats = z.object({
  total: z.number(),
  active: z.number(),
  paused: z.number(),
  nuked: z.number(),
});
export const ListIdentitiesResponse = z.object({
  identities: z.array(Identity),
  stats: IdentityStats,
  next_cursor: NextCursor,
});
export const IdentityResponse = z.object({ success: z.literal(true), identity: Identity });
export { SuccessResponse } from "../../kernel/schemas";
