import type { PullPage } from "../passwords";

/**
 * The sync domain's reads and writes of entries are the passwords domain's (it owns the table):
 * this module names them for the service, beside how a pull is cut into pages.
 */
export {
  findMany,
  lookup,
  pull,
  pullPage,
  tombstoneStatement,
  updateStatement,
  type PageEnd,
  type PullMode,
  type PullPage,
  type SyncRow,
} from "../passwords";
export { readClock } from "../../db/change-clock";

/**
 * How a pull is cut into reads. The first read takes up to `first` rows, so a delta of fewer is one
 * round trip and one string. A longer pull streams the rest in pages sized by bytes: each next page
 * takes as many rows as, at the average size of the rows just read, fill its byte budget (between
 * `minRows` and `maxRows`). The budget starts at `bytes` and doubles with each page up to
 * `maxBytes`: the first pages stay small so the first rows leave early, and a long pull is then
 * read in few, large reads. Rows carry ciphertext of very different sizes, so a count of rows
 * alone either makes many small reads (each has a fixed cost) or lets one page of large rows grow
 * without bound. Each read costs one D1 round trip whatever its size, and a full pull's time was
 * those trips. A page is one string in the Worker, garbage once sent, so the largest page is also
 * what the runtime's memory grows by during a long pull. The figures behind these numbers (time
 * and memory per page size) are in docs/scale.md, "Full pull".
 */
export type PageSizes = {
  first: number;
  bytes: number;
  maxBytes?: number;
  minRows: number;
  maxRows: number;
};
export const PAGE_SIZES: PageSizes = {
  first: 200,
  bytes: 256 * 1024,
  maxBytes: 1024 * 1024,
  minRows: 20,
  maxRows: 4000,
};

/** The byte budget of the `index`th page after the first read (0-based): `bytes`, doubled per page up to `maxBytes`. */
export function pageBytes(sizes: PageSizes, index: number): number {
  const cap = sizes.maxBytes ?? sizes.bytes;
  return Math.min(cap, sizes.bytes * 2 ** Math.min(index, 30));
}

/** Rows for the `index`th page after the first read, from the average size of the rows of `page`, the one before it. */
export function nextLimit(page: PullPage, sizes: PageSizes, index = 0): number {
  const budget = pageBytes(sizes, index);
  const perRow = page.body && page.n > 0 ? page.body.length / page.n : sizes.bytes / sizes.maxRows;
  return Math.max(sizes.minRows, Math.min(sizes.maxRows, Math.floor(budget / perRow)));
}
