import { z } from "zod";

/**
 * The spec's cursor convention for list endpoints: `limit` (default 50, at most 100) and `cursor`,
 * the id of the last item of the previous page. A body carries `next_cursor` beside its list:
 * the id to pass for the next page, or null on the last one.
 */
export const PAGE_LIMIT_DEFAULT = 50;
export const PAGE_LIMIT_MAX = 100;

// Query strings are text: only plain digits count as an integer, so "1.5", "-1", "1e2" and "" are
// refused (400) rather than rounded or defaulted.
const limit = z
  .string()
  .regex(/^\d+$/, "must be an integer")
  .transform(Number)
  .pipe(z.number().int().min(1).max(PAGE_LIMIT_MAX))
  .optional()
  .transform((v) => v ?? PAGE_LIMIT_DEFAULT);

export const PageQuery = z.object({ limit, cursor: z.string().min(1).max(128).optional() });
export type PageParams = z.output<typeof PageQuery>;

export const NextCursor = z.string().nullable();
export type Page<T> = { items: T[]; next_cursor: string | null };

/**
 * A page from rows fetched with `limit + 1`: the extra row only says that more follow, so nobody
 * needs a count, and the last page is known without a request that comes back empty.
 */
export function pageOf<T extends { id: string }>(rows: T[], limit: number): Page<T> {
  const items = rows.slice(0, limit);
  return { items, next_cursor: rows.length > limit ? (items.at(-1)?.id ?? null) : null };
}
