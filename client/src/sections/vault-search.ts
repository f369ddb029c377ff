/**
 * The vault page's search, kept in memory: the words of each entry's name, site and (once the
 * entry has been opened on this page) username, lower-cased, so a keystroke filters an array of
 * words rather than hashing the query and comparing blind-index tokens. It finds exactly what the
 * blind index finds (crypto.ts `plainTokens`: whole words and word beginnings of at least two
 * letters), and lives only in the page's memory, next to the rows that already show these fields.
 */
import { domainOf } from "../crypto";
import type { LocalEntry } from "../db";

/** As the blind index: words of at least two letters or digits, cut at 24. */
const MIN_WORD = 2;
const MAX_WORD = 24;

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

export class SearchIndex {
  private readonly words = new Map<string, { name: string; site: string; username: string; words: string[] }>();

  /** The entry's words with the username as known now (undefined: not opened yet, name and site only). */
  private wordsOf(e: LocalEntry, username: string | undefined): string[] {
    const site = e.website ?? e.url ?? "";
    const user = username ?? "";
    // Compared field by field: a keystroke checks every entry, and a joined key per entry was a
    // string made 10,000 times per keystroke.
    const known = this.words.get(e.id);
    if (known && known.name === e.name && known.site === site && known.username === user) return known.words;
    // The same text the blind index hashes: the name, the site's host and the username.
    const words = [...new Set(split(`${e.name} ${domainOf(site)} ${user}`))];
    this.words.set(e.id, { name: e.name, site, username: user, words });
    return words;
  }

  /** Cuts an entry's words ahead of the first search (the pass that opens entries does it, a few at a time). */
  note(e: LocalEntry, username: string): void {
    this.wordsOf(e, username);
  }

  matches(e: LocalEntry, username: string | undefined, query: string[]): boolean {
    if (query.length === 0) return true;
    const words = this.wordsOf(e, username);
    return query.every((q) => words.some((w) => w.startsWith(q)));
  }
}
