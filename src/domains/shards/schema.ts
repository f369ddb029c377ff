import { z } from "zod";

export const MoveBody = z.object({
  user_id: z.string().min(1).max(255),
  /** The target shard's binding name. */
  to: z.string().regex(/^DB_(0|[1-9][0-9]*)$/, "must name a shard binding, DB_<n>"),
});

export const MoveResponse = z.object({
  user_id: z.string(),
  from: z.string(),
  to: z.string(),
  rows_copied: z.number().int(),
  rows_deleted: z.number().int(),
});

export const ShardsResponse = z.object({ shards: z.array(z.string()), directory: z.string() });
