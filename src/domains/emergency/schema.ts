import { z } from "zod";
import { emailAddress } from "../../kernel/schemas";
import { SyncEntry } from "../sync";
import { NextCursor, PageQuery } from "../../kernel/pagination";

export const WAIT_HOURS = { min: 1, max: 720 };
const waitHours = z.number().int().min(WAIT_HOURS.min).max(WAIT_HOURS.max);
const opaque = (max: number) => z.string().min(1).max(max);

export const AddBody = z.object({
  email: emailAddress(254),
  wait_hours: waitHours,
  wrapped_access_key: opaque(16_384),
  invite_salt: opaque(512),
});
export type AddInput = z.output<typeof AddBody>;

/** The mailed token, or (D21) the id of an invitation listed for the caller's verified email. */
export const AcceptBody = z
  .object({
    token: z.string().min(16).max(512).optional(),
    contact_id: z.string().min(1).max(128).optional(),
  })
  .refine((b) => (b.token === undefined) !== (b.contact_id === undefined), {
    message: "give either token or contact_id",
    path: ["token"],
  })
  .transform((b) => (b.token !== undefined ? { token: b.token } : { contact_id: b.contact_id! }));
export const RequestBody = z.object({ contact_id: z.string().min(1).max(128) });
export const RespondBody = z.object({
  contact_id: z.string().min(1).max(128),
  action: z.enum(["approve", "deny"]),
});
export const UpdateBody = z.object({ wait_hours: waitHours });
export const AccessQuery = z.object({ contact_id: z.string().min(1).max(128) });

export const ContactShape = z.object({
  id: z.string(),
  owner_id: z.string(),
  /** Added for the contact's page, which lists the owners who named them; null for records made before it was stored. */
  owner_email: z.string().nullable(),
  contact_email: z.string(),
  contact_user_id: z.string().nullable(),
  status: z.enum([
    "pending_invite",
    "active",
    "access_requested",
    "access_granted",
    "access_denied",
    "access_expired",
    "revoked",
  ]),
  wait_hours: z.number().int(),
  requested_at: z.string().nullable(),
  grant_at: z.string().nullable(),
  granted_at: z.string().nullable(),
  expires_at: z.string().nullable(),
  created_at: z.string(),
});

export const ContactResponse = z.object({ contact: ContactShape });
export const ListQuery = PageQuery;
export const ListResponse = z.object({
  as_owner: z.array(ContactShape),
  as_contact: z.array(ContactShape),
  next_cursor: NextCursor,
});
export const AccessResponse = z.object({ wrapped_access_key: z.string(), invite_salt: z.string() });
export { SuccessResponse } from "../../kernel/schemas";

export const VaultResponse = z.object({
  owner_email: z.string().nullable(),
  owner_id: z.string(),
  entries: z.array(SyncEntry),
});
