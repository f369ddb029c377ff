/**
 * The vault list's answers to a search at thousands of entries: the snapshot in the list's order
 * with each entry's search key and row made once (until the snapshot or the order changes), so a
 * keystroke runs one substring search per entry and makes nothing per entry; and a keystroke that
 * only adds to the query narrows the last answer instead of the whole vault.
 */
import type { LocalEntry } from "../../../../core/store";
import type { Row } from "./list";
import { keyMatches, narrows } from "./search";
import { mergeByName } from "./shared";

/**
 * `entries` (in name order) in the list's order `by`: favourites (as far as the pass has read
 * them) first, last changed, last used (on this device), or as they are.
 */
export function ordered(
  entries: LocalEntry[],
  by: string,
  favourite: (e: LocalEntry) => boolean,
  used: Record<string, number>,
): LocalEntry[] {
  if (by === "favourites")
    return entries.filter(favourite).concat(entries.filter((e) => !favourite(e)));
  // The snapshot is in name order and the sort is stable: ties stay by name.
  if (by === "changed")
    return [...entries].sort((a, b) =>
      a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : 0,
    );
  if (by === "used") return [...entries].sort((a, b) => (used[b.id] ?? 0) - (used[a.id] ?? 0));
  return entries;
}

/**
 * The person's entries and the ones shared with them in one list: by name, shared ones among
 * the others; favourites first, then the rest as by name; in the other orders, after them (a
 * shared entry has no last use or change of the person's).
 */
export function withSharedRows(own: Row[], sharedRows: Row[], by: string): Row[] {
  if (by === "name") return mergeByName(own, sharedRows);
  if (by !== "favourites") return own.concat(sharedRows);
  const cut = own.findIndex((r) => !r.favorite);
  return cut < 0
    ? own.concat(sharedRows)
    : own.slice(0, cut).concat(mergeByName(own.slice(cut), sharedRows));
}

/**
 * Each entry's row as last made: a list of thousands of entries is handed the same objects again
 * instead of one new object per entry each time.
 */
export class RowCache {
  private readonly rows = new Map<string, { e: LocalEntry; row: Row }>();

  of(e: LocalEntry, favorite: boolean): Row {
    const known = this.rows.get(e.id);
    if (known && known.e === e && known.row.favorite === favorite) return known.row;
    const row: Row = {
      id: e.id,
      name: e.name,
      site: e.website ?? e.url ?? "",
      favorite,
      ...(e.has_passkey ? { passkey: true } : {}),
    };
    this.rows.set(e.id, { e, row });
    return row;
  }
}

/**
 * The list in one order, with each entry's search key. The keys only when a search needs them:
 * while a first sync's pages arrive the table is made again a few times a second, and a key is cut
 * from the entry's name and site (a URL parse) the first time it is asked for; a list without a
 * query needs none.
 */
class Table {
  private made: (string | null)[] | null = null;
  private nulls = 0;
  /** Each entry's place by id, made when an entry is first re-keyed. */
  places: Map<string, number> | null = null;

  constructor(
    readonly key: string,
    readonly entries: LocalEntry[],
    readonly rows: Row[],
    private readonly keyOf: (e: LocalEntry) => string | null,
  ) {}

  /** Whether the keys are made (a search asked for them). */
  get keyed(): boolean {
    return this.made !== null;
  }

  get keys(): (string | null)[] {
    if (!this.made) {
      this.made = this.entries.map(this.keyOf);
      this.nulls = this.made.reduce((n, k) => (k === null ? n + 1 : n), 0);
    }
    return this.made;
  }

  /** Whether some entry is matched on its blind-index tokens (the query is hashed only then). */
  get tokens(): boolean {
    return this.keys.length > 0 && this.nulls > 0;
  }

  /** Entry `i`'s key is now `key`; false when the keys are not made yet or it did not change. */
  setKey(i: number, key: string | null): boolean {
    if (!this.made || this.made[i] === key) return false;
    this.nulls += (key === null ? 1 : 0) - (this.made[i] === null ? 1 : 0);
    this.made[i] = key;
    return true;
  }
}

/**
 * What the table is made from; `keyOf` is null for an entry matched on its blind-index tokens, and
 * `plainKeyOf` is then its name's and site's words (for query words too short for a token).
 */
export type TableSource = {
  entries: () => LocalEntry[];
  keyOf: (e: LocalEntry) => string | null;
  plainKeyOf: (e: LocalEntry) => string;
  rowOf: (e: LocalEntry) => Row;
};

export type Query = {
  /** The query's words, and as searched for (vault-search.ts `needles`). */
  words: string[];
  needles: string[];
  /** The query's blind-index tokens, for entries matched on theirs. */
  hashed: string[];
  /** The query's words too short for a token, as needles: those entries match them on name and site. */
  short: string[];
  tag: string;
  /** The organisation filter when one is on, and what it is (an answer narrows only within the same). */
  organised: ((e: LocalEntry) => boolean) | null;
  scope: string;
};

export class ListAnswers {
  private table: Table | null = null;
  /** The last answer as places in the table (null: every entry). */
  private last: { words: string[]; scope: string; places: number[] | null } | null = null;

  constructor(private readonly source: TableSource) {}

  /** The table for `key` (the order and the snapshot's version), made again when the key changed. */
  tableFor(key: string): Table {
    if (this.table?.key === key) return this.table;
    const entries = this.source.entries();
    this.table = new Table(key, entries, entries.map(this.source.rowOf), this.source.keyOf);
    return this.table;
  }

  /**
   * One entry's key changed (its username was learnt): the table takes it in place, where making
   * the table again cut the words of every entry (at 10,000 entries, tens of milliseconds in the
   * next keystroke, every keystroke while the pass reads entries). The next answer starts from the
   * whole table: the last one may miss an entry the new key matches.
   */
  rekey(id: string) {
    const t = this.table;
    // Keys not made yet are cut from the entry as it is when a search first needs them: nothing
    // to take in (and no place map to make) for a table no search has used.
    if (!t?.keyed) return;
    t.places ??= new Map(t.entries.map((e, i) => [e.id, i]));
    const i = t.places.get(id);
    if (i === undefined) return;
    if (t.setKey(i, this.source.keyOf(t.entries[i]!))) this.last = null;
  }

  /** The rows `q` finds in the table, in its order. */
  answer(t: Table, q: Query): Row[] {
    const scope = `${t.key}\u0001${q.tag}\u0001${q.scope}`;
    const from =
      this.last && this.last.scope === scope && narrows(this.last.words, q.words)
        ? this.last.places
        : null;
    let places: number[] | null = null;
    if (q.words.length || q.tag || q.organised || from) {
      places = [];
      const n = from ? from.length : t.entries.length;
      for (let k = 0; k < n; k++) {
        const i = from ? from[k]! : k;
        const e = t.entries[i]!;
        if (q.tag && !e.tags.includes(q.tag)) continue;
        if (q.organised && !q.organised(e)) continue;
        const key = t.keys[i];
        if (
          q.words.length &&
          !(key !== null
            ? keyMatches(key, q.needles)
            : q.hashed.every((h) => e.search_tokens!.includes(h)) &&
              (!q.short.length || keyMatches(this.source.plainKeyOf(e), q.short)))
        )
          continue;
        places.push(i);
      }
    }
    this.last = { words: q.words, scope, places };
    return places ? places.map((i) => t.rows[i]!) : t.rows;
  }
}
