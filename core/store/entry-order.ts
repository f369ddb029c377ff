/**
 * The vault's list order, in a module of its own so the pull worker can sort a page's entries
 * with the very comparison the page merges them by (the worker bundles nothing else of the vault).
 */
import type { LocalEntry, PulledChange } from "./db";

// Made on the first comparison, not when the module loads: building a collator loads the locale's
// collation tables (ICU), a sixth of the command line's processor time on a `vault get` that never
// sorts (docs/cli.md, "Speed").
let byName: Intl.Collator | undefined;
/** The vault's list order: by name, ties by id. */
export const byEntryName = (a: LocalEntry, b: LocalEntry): number =>
  (byName ??= new Intl.Collator(undefined, { sensitivity: "variant" })).compare(a.name, b.name) ||
  (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * A page of a pull in the list's order: its removals first, then its entries by name. Done where
 * the page is parsed (the pull worker), so the page that lists them only merges sorted runs. A
 * page names each entry once, so moving its changes about changes nothing the store keeps.
 */
export function inListOrder(changes: PulledChange[]): PulledChange[] {
  const gone = changes.filter((c) => "tombstone" in c);
  const kept = changes.filter((c): c is LocalEntry => !("tombstone" in c)).sort(byEntryName);
  return gone.length ? [...gone, ...kept] : kept;
}
