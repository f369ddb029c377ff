/**
 * Fill warnings: whether the password an entry is about to fill is reused (another entry of this
 * browser's synced copy holds the very same password) or exposed (seen in a breach, by the Pwned
 * Passwords range's k-anonymity model through the worker's relay, as the web app's health page
 * asks it). The person is warned in the extension's own frame or popup and the fill goes ahead.
 *
 * When each part runs, so that a fill stays fast:
 * - Reuse: after each sync, in the background, every entry new or changed since the last pass (by
 *   its revision) is opened and its password's SHA-1 kept in this document's memory; the holders of
 *   each hash are then counted. A fill only looks its hash up.
 * - Exposure: when a menu (or the popup) lists an entry, the range of its password's prefix is
 *   asked at once, and kept per prefix; a click counts only after the menu was shown for 500 ms, so
 *   the range has normally arrived by the pick. A pick waits for one still under way at most
 *   RANGE_WAIT_MS, then fills without the exposure part rather than hold the person up.
 * Only the five-character prefix leaves this device; hashes, prefixes asked and ranges live in this
 * document's memory only and go at lock with the keys.
 */
import type { LocalEntry } from "../../core/store";
import { parseRange, sha1Hex, type RangeSource } from "../../core/health";
import type { FillWarning } from "./messages";

/** How long a pick waits for a range still being asked before it fills without the exposure part. */
export const RANGE_WAIT_MS = 1500;
/** Ranges change as breaches are added; a day, as the worker's edge cache keeps them. */
const RANGE_TTL_MS = 24 * 60 * 60_000;
/** Entries opened between two yields of the background pass, so fills are answered in between. */
const SLICE = 50;

/** An entry's revision: a new seal (any edit) changes its time and its ciphertext. */
const revisionOf = (e: LocalEntry) =>
  `${e.updated_at}|${e.encrypted_data?.length ?? 0}|${e.encrypted_data?.slice(-24) ?? ""}`;

export class FillHealth {
  /** Each entry's revision and its password's SHA-1 (null without a password or when it does not open). */
  private readonly known = new Map<string, { rev: string; hash: string | null }>();
  /** How many entries hold each hash, as of the last finished pass. */
  private holders = new Map<string, number>();
  private readonly ranges = new Map<string, { at: number; seen: Promise<Map<string, number>> }>();
  private pass = 0;
  /** Whether a pass over the whole copy has finished (before that, reuse is not reported). */
  ready = false;

  constructor(private readonly range: RangeSource) {}

  /**
   * Opens the entries new or changed since the last pass and counts who holds each password. A
   * newer pass (the next sync) supersedes one still running.
   */
  async refresh(
    entries: LocalEntry[],
    password: (e: LocalEntry) => Promise<string>,
  ): Promise<void> {
    const pass = ++this.pass;
    const present = new Set<string>();
    let opened = 0;
    for (const e of entries) {
      present.add(e.id);
      const rev = revisionOf(e);
      if (this.known.get(e.id)?.rev === rev) continue;
      const p = await password(e).catch(() => "");
      const hash = p ? await sha1Hex(p) : null;
      if (pass !== this.pass) return;
      this.known.set(e.id, { rev, hash });
      if (++opened % SLICE === 0) {
        await new Promise((r) => setTimeout(r, 0));
        if (pass !== this.pass) return;
      }
    }
    for (const id of this.known.keys()) if (!present.has(id)) this.known.delete(id);
    const holders = new Map<string, number>();
    for (const { hash } of this.known.values())
      if (hash) holders.set(hash, (holders.get(hash) ?? 0) + 1);
    this.holders = holders;
    this.ready = true;
  }

  /** Starts asking the range of a password a menu lists (nothing when it is already known). */
  async prewarm(password: string): Promise<void> {
    if (password) this.rangeOf((await sha1Hex(password)).slice(0, 5));
  }

  /** What to warn of when entry `id` fills `password`; null when it is neither reused nor exposed (as far as known). */
  async warning(id: string, password: string, healthUrl: string): Promise<FillWarning | null> {
    if (!password) return null;
    const hash = await sha1Hex(password);
    const own = this.known.get(id)?.hash === hash ? 1 : 0;
    const reused = Math.max(0, (this.holders.get(hash) ?? 0) - own);
    const exposed = await this.timesSeen(hash);
    if (!reused && !exposed) return null;
    return { reused, exposed: exposed ?? 0, healthUrl };
  }

  /** Times seen in breaches; null when the range could not be had in time (not read as "not exposed"). */
  private async timesSeen(hash: string): Promise<number | null> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<null>((r) => (timer = setTimeout(() => r(null), RANGE_WAIT_MS)));
    try {
      const seen = await Promise.race([this.rangeOf(hash.slice(0, 5)), late]);
      return seen ? (seen.get(hash.slice(5)) ?? 0) : null;
    } catch {
      return null;
    } finally {
      clearTimeout(timer);
    }
  }

  private rangeOf(prefix: string): Promise<Map<string, number>> {
    const cached = this.ranges.get(prefix);
    if (cached && Date.now() - cached.at < RANGE_TTL_MS) return cached.seen;
    const seen = this.range(prefix).then(parseRange);
    this.ranges.set(prefix, { at: Date.now(), seen });
    // A failed request is forgotten, so the next menu asks again.
    seen.catch(() => this.ranges.get(prefix)?.seen === seen && this.ranges.delete(prefix));
    return seen;
  }

  /** At lock: nothing derived from a password stays. */
  clear() {
    this.pass++;
    this.known.clear();
    this.holders.clear();
    this.ranges.clear();
    this.ready = false;
  }
}
