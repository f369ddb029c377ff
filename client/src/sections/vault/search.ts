/**
 * The vault page's search, kept in memory: the words of each entry's name, site and (once the
 * entry has been opened on this page) username, lower-cased, so a keystroke filters an array of
 * words rather than hashing the query and comparing blind-index tokens. A query word matches the
 * beginning of any word, from one letter on, as Bitwarden's and 1Password's searches do. The blind
 * index (crypto.ts `plainTokens`) holds word beginnings of two letters or more: a one-letter word
 * is matched on the words this page holds (an entry not opened yet: its name and site).
 */
import { domainOf } from "../../../../core/crypto";
import type { LocalEntry } from "../../../../core/store";

/** Words of letters or digits, cut at 24 as the blind index cuts them. */
const MIN_WORD = 1;
const MAX_WORD = 24;
/** The blind index's shortest token: a shorter query word has no token to compare. */
export const MIN_TOKEN = 2;

function split(text: string): string[] {
  return text
    .toLowerCase()
    .normalize("NFKC")
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length >= MIN_WORD)
    .map((w) => w.slice(0, MAX_WORD));
}

/** The query's words; an entry matches when each begins one of its words. */
export function queryWords(query: string): string[] {
  return [...new Set(split(query))];
}

/** The query words too short for the blind index, as `needles`: matched on an entry's name and site. */
export function shortNeedles(words: readonly string[]): string[] {
  return needles(words.filter((w) => w.length < MIN_TOKEN));
}

/** Joins an entry's words, each after the separator: a query word matches where separator + word occurs. */
const SEP = "\u0001";

/**
 * The query's words as searched for in an entry's key: one substring search per word (native
 * code) instead of a loop over the entry's words per query word, for each of thousands of entries.
 */
export function needles(words: readonly string[]): string[] {
  return words.map((w) => SEP + w);
}

/** Whether a query (its words) finds at least what a longer one finds: each of its words begins one of the longer's. */
export function narrows(before: readonly string[], now: readonly string[]): boolean {
  return before.every((w) => now.some((n) => n.startsWith(w)));
}

/** A text's words as a key `keyMatches` searches. */
export function textKey(text: string): string {
  return [...new Set(split(text))].map((w) => SEP + w).join("");
}

export class SearchIndex {
  private readonly keys = new Map<
    string,
    { name: string; site: string; username: string; key: string }
  >();

  /** The entry's key with the username as known now (undefined: not opened yet, name and site only). */
  keyOf(e: LocalEntry, username: string | undefined): string {
    const site = e.website ?? e.url ?? "";
    const user = username ?? "";
    // Compared field by field: a keystroke checks every entry, and a joined key per entry was a
    // string made 10,000 times per keystroke.
    const known = this.keys.get(e.id);
    if (known && known.name === e.name && known.site === site && known.username === user)
      return known.key;
    // The same text the blind index hashes: the name, the site's host and the username.
    const key = textKey(`${e.name} ${domainOf(site)} ${user}`);
    this.keys.set(e.id, { name: e.name, site, username: user, key });
    return key;
  }

  /** Cuts an entry's words ahead of the first search (the pass that opens entries does it, a few at a time). */
  note(e: LocalEntry, username: string): void {
    this.keyOf(e, username);
  }

  /** Whether each of the query's `needles` (see `needles`) begins a word of the entry. */
  matches(e: LocalEntry, username: string | undefined, query: readonly string[]): boolean {
    return keyMatches(this.keyOf(e, username), query);
  }
}

/** Whether each of the `needles` begins a word of the entry whose key (`SearchIndex.keyOf`) this is. */
export function keyMatches(key: string, needles: readonly string[]): boolean {
  for (const q of needles) if (!key.includes(q)) return false;
  return true;
}
