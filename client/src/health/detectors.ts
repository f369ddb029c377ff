/**
 * Vault health: which passwords are weak, reused, exposed in a breach, old, or lack the second
 * factor their service offers. Pure (no DOM, no storage): it takes decrypted entries and the tools
 * it needs, and everything stays on this device except five hex characters of each password's
 * SHA-1 (breach.ts). The page runs it in a Web Worker (worker.ts); run on a page, it works in
 * slices that give the page back every few milliseconds, so the page stays responsive.
 */
import { BreachChecker, sha1Hex } from "../../../core/health";

export type HealthItem = {
  id: string;
  name: string;
  /** The site's host, lower case without "www."; null when the entry has none. */
  host: string | null;
  /** The entry's http(s) address, where a reset would start; absent or null when it has none. */
  url?: string | null;
  username: string;
  password: string;
  /** The entry's TOTP secret (empty: none). */
  totp: string;
  /** When the current password was set (inside the envelope); null for entries from before that was kept. */
  changedAt: string | null;
  createdAt: string;
};

export type StrengthResult = { score: 0 | 1 | 2 | 3 | 4; label: string; reason: string };
export type StrengthCheck = (password: string, userInputs: string[]) => StrengthResult;

export type Finding = "weak" | "reused" | "exposed" | "old" | "no2fa";
export const FINDINGS: readonly Finding[] = ["exposed", "reused", "weak", "old", "no2fa"];

export type EntryHealth = {
  id: string;
  name: string;
  host: string | null;
  weak?: StrengthResult;
  /**
   * The group, whether its passwords are identical or trivial variations of one another, how many
   * entries share it, and up to three of the others (a group can be hundreds of entries: listing
   * each one's others would grow with the square of its size).
   */
  reused?: { group: string; kind: "same" | "similar"; size: number; others: string[] };
  exposed?: { count: number };
  old?: { days: number; since: string; known: boolean };
  no2fa?: true;
};

export type HealthReport = {
  /** 0 to 100: the average over entries with a password, each losing points for its findings. */
  score: number;
  /** Entries with a password, the ones the checks looked at. */
  checked: number;
  counts: Record<Finding, number>;
  /** Only entries with at least one finding. */
  entries: EntryHealth[];
  reuseGroups: { group: string; kind: "same" | "similar"; ids: string[] }[];
  /** Entries whose exposure could not be checked (the range service failed), and why. */
  exposureUnchecked: number;
  exposureError: string | null;
};

export type HealthOptions = {
  strength: StrengthCheck;
  /** null: the exposure check is skipped (offline). */
  breach: BreachChecker | null;
  /** Does the registry say this host's service offers TOTP? */
  offersTotp: (host: string) => boolean;
  now?: number;
  /** Passwords older than this are reported as old. */
  maxAgeDays?: number;
  /** Range requests at once. */
  concurrency?: number;
  onProgress?: (done: number, total: number) => void;
  /** Give the event loop back every few milliseconds (on a page); false in a worker, which has no page to keep responsive. */
  slice?: boolean;
};

export const DEFAULT_MAX_AGE_DAYS = 365;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Give the page back after this long: well under the 50 ms that counts as a long task. */
const SLICE_MS = 12;
/** Entries of a reuse group named beside each of its entries. */
export const OTHERS_NAMED = 3;
const PENALTY: Record<Finding, number> = { exposed: 60, weak: 40, reused: 30, old: 10, no2fa: 10 };

/**
 * The reuse key: a password's trivial variations ("Summer2023!", "summer2024") share one, as the
 * strength estimator would see through them; a short stem would match too much, so short ones
 * group only when identical.
 */
export function reuseKey(password: string): string {
  const stem = password.toLowerCase().replace(/^[\d\W_]+|[\d\W_]+$/g, "");
  return stem.length >= 6 ? `~${stem}` : `=${password}`;
}

/** Groups entries whose passwords are the same or trivially varied; only groups of two or more. */
export function findReuse(
  items: readonly HealthItem[],
): { group: string; kind: "same" | "similar"; ids: string[] }[] {
  const byKey = new Map<string, HealthItem[]>();
  for (const i of items) {
    if (!i.password) continue;
    const k = reuseKey(i.password);
    const list = byKey.get(k);
    if (list) list.push(i);
    else byKey.set(k, [i]);
  }
  const groups: { group: string; kind: "same" | "similar"; ids: string[] }[] = [];
  let n = 0;
  for (const list of byKey.values()) {
    if (list.length < 2) continue;
    const same = list.every((i) => i.password === list[0]!.password);
    groups.push({ group: `g${++n}`, kind: same ? "same" : "similar", ids: list.map((i) => i.id) });
  }
  return groups;
}

/** Days since the password was set (or, unknown, since the entry was made); null when not old. */
export function ageOf(
  item: HealthItem,
  now: number,
  maxAgeDays: number,
): EntryHealth["old"] | null {
  const since = item.changedAt ?? item.createdAt;
  const t = Date.parse(since);
  if (Number.isNaN(t)) return null;
  const days = Math.floor((now - t) / DAY_MS);
  return days > maxAgeDays ? { days, since, known: item.changedAt !== null } : null;
}

export function hostMatches(host: string, domains: ReadonlySet<string>): boolean {
  for (let h = host; h; h = h.includes(".") ? h.slice(h.indexOf(".") + 1) : "")
    if (domains.has(h)) return true;
  return false;
}

function yielder(slice: boolean) {
  let last = Date.now();
  return async () => {
    if (!slice) return;
    if (Date.now() - last < SLICE_MS) return;
    await new Promise((r) => setTimeout(r, 0));
    last = Date.now();
  };
}

async function pool<T>(work: T[], size: number, run: (t: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(size, work.length) }, async () => {
      while (next < work.length) await run(work[next++]!);
    }),
  );
}

export async function checkHealth(
  items: readonly HealthItem[],
  o: HealthOptions,
): Promise<HealthReport> {
  const now = o.now ?? Date.now();
  const maxAge = o.maxAgeDays ?? DEFAULT_MAX_AGE_DAYS;
  const withPassword = items.filter((i) => i.password);
  const total = withPassword.length * 2;
  let done = 0;
  const progress = () => o.onProgress?.(++done, total);
  const pause = yielder(o.slice ?? true);
  const result = new Map<string, EntryHealth>();
  const of = (i: HealthItem) =>
    result.get(i.id) ??
    (result.set(i.id, { id: i.id, name: i.name, host: i.host }), result.get(i.id)!);

  // Strength, once per distinct password (with the entry's own words as hints).
  const strength = new Map<string, StrengthResult>();
  for (const i of withPassword) {
    let s = strength.get(i.password);
    if (!s) {
      s = o.strength(
        i.password,
        [i.username, i.name, ...(i.host ?? "").split(".")].filter((w) => w.length > 2),
      );
      strength.set(i.password, s);
    }
    if (s.score < 3) of(i).weak = s;
    const old = ageOf(i, now, maxAge);
    if (old) of(i).old = old;
    if (i.host && !i.totp.trim() && o.offersTotp(i.host)) of(i).no2fa = true;
    progress();
    await pause();
  }

  const reuseGroups = findReuse(withPassword);
  const byId = new Map(withPassword.map((i) => [i.id, i]));
  for (const g of reuseGroups) {
    for (const id of g.ids) {
      const i = byId.get(id)!;
      of(i).reused = {
        group: g.group,
        kind: g.kind,
        size: g.ids.length,
        others: g.ids
          .slice(0, OTHERS_NAMED + 1)
          .filter((x) => x !== id)
          .slice(0, OTHERS_NAMED),
      };
    }
  }

  // Exposure, once per distinct password, a few ranges at a time.
  let exposureUnchecked = 0;
  let exposureError: string | null = null;
  if (o.breach) {
    const byPassword = new Map<string, HealthItem[]>();
    for (const i of withPassword) {
      const list = byPassword.get(i.password);
      if (list) list.push(i);
      else byPassword.set(i.password, [i]);
    }
    const breach = o.breach;
    await pool([...byPassword], o.concurrency ?? 6, async ([password, list]) => {
      try {
        const count = await breach.timesSeenHash(await sha1Hex(password));
        if (count > 0) for (const i of list) of(i).exposed = { count };
      } catch (e) {
        exposureUnchecked += list.length;
        exposureError ??= e instanceof Error ? e.message : String(e);
      }
      for (let k = 0; k < list.length; k++) progress();
      await pause();
    });
  } else {
    exposureUnchecked = withPassword.length;
  }

  const entries = [...result.values()].filter(
    (e) => e.weak || e.reused || e.exposed || e.old || e.no2fa,
  );
  const counts = Object.fromEntries(
    FINDINGS.map((f) => [f, entries.filter((e) => e[f]).length]),
  ) as Record<Finding, number>;
  let points = 0;
  for (const i of withPassword) {
    const e = result.get(i.id);
    points += Math.max(0, 100 - FINDINGS.reduce((sum, f) => sum + (e?.[f] ? PENALTY[f] : 0), 0));
  }
  const score = withPassword.length ? Math.round(points / withPassword.length) : 100;
  return {
    score,
    checked: withPassword.length,
    counts,
    entries,
    reuseGroups,
    exposureUnchecked,
    exposureError,
  };
}
