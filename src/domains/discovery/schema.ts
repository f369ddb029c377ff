import { z } from "zod";
import { emailAddress } from "../../kernel/schemas";
import { NextCursor, PageQuery } from "../../kernel/pagination";
import { queryBoolean } from "../../lib/validators";

export const ListQuery = PageQuery.extend({ include_dismissed: queryBoolean.optional() });

export const OriginalPatchBody = z.object({
  id: z.string().min(1).max(128),
  dismissed: z.boolean(),
});

export const AccountsPatchBody = z
  .object({
    id: z.string().min(1).max(128),
    dismissed: z.boolean().optional(),
    inVault: z.boolean().optional(),
    vaultPasswordId: z.string().min(1).max(128).nullable().optional(),
  })
  .refine(
    (b) => b.dismissed !== undefined || b.inVault !== undefined || b.vaultPasswordId !== undefined,
    {
      message: "give dismissed, inVault or vaultPasswordId",
      path: ["body"],
    },
  );

export const AccountsScanBody = z.object({ email: emailAddress(320).optional() }).optional();

const domain = z
  .string()
  .trim()
  .min(1)
  .max(253)
  .regex(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/i, "must be a domain");

export const AddToVaultBody = z.object({ domains: z.array(domain).min(1).max(200) });

export const DiscoveredAccount = z.object({
  id: z.string(),
  domain: z.string(),
  serviceName: z.string(),
  serviceIcon: z.string(),
  serviceColor: z.string(),
  category: z.string().nullable(),
  loginUrl: z.string().nullable(),
  inVault: z.boolean(),
  vaultPasswordId: z.string().nullable(),
  dismissed: z.boolean(),
  oauthLikely: z.boolean(),
  emailCount: z.number().int(),
  lastSeen: z.string().nullable(),
  sourceEmail: z.string().nullable(),
});

export const Stats = z.object({
  total: z.number().int(),
  inVault: z.number().int(),
  notInVault: z.number().int(),
  oauthLikely: z.number().int(),
  dismissed: z.number().int(),
});
/** A scan answers with every account it leaves (next_cursor null); GET pages the same list. */
export const ListResponse = z.object({
  accounts: z.array(DiscoveredAccount),
  stats: Stats,
  next_cursor: NextCursor,
});
export const PatchResponse = z.object({ success: z.literal(true), account: DiscoveredAccount });
export const AddToVaultResponse = z.object({
  success: z.literal(true),
  created: z.array(z.object({ id: z.string(), domain: z.string(), name: z.string() })),
  skipped: z.array(
    z.object({ domain: z.string(), reason: z.enum(["in_vault", "not_discovered"]) }),
  ),
});
