/**
 * A cheap verdict for long random-looking passwords, so the health check of a large vault does not
 * run the strength estimator (tens of milliseconds a password, most of it trying look-alike
 * substitutions) on every generated password.
 *
 * Why it is safe, from the estimator's own arithmetic (zxcvbn's scoring): a password's guesses are
 * the fewest over ways to cover it with l matches, each way costing l! x (product of the matches'
 * guesses) + 10,000^(l-1), and a stretch no pattern explains is brute force at 10 guesses a character.
 * "Weak" here is a score below 3, under 10^8 guesses. So a weak password is covered by at most two
 * matches (three already add 10^8), and a brute-force one of k characters costs 10^k, so
 * with 16 characters or more one match is a pattern of at least 8 characters: a dictionary word
 * (plain, reversed or in look-alike spelling), a keyboard walk, a sequence, a repeat or a date.
 * The checks below rule out all but one of them, each with margin: enough different characters
 * (no repeat), two kinds of character or more, no run of steady steps (no sequence), no run of
 * five digits (no date), no walk of six neighbouring keys on the estimator's own keyboard maps, and
 * no dictionary word of 8 letters or more, as written or reversed. What is left, a word of 8
 * letters or more in look-alike spelling ("p4$$w0rd..."), is not what a generator makes and
 * rarely hides in 16 characters a person chose; the unit test and the bench compare this verdict
 * with the estimator's own.
 */
import type { StrengthResult } from "./detectors";

export const RANDOM_MIN_LENGTH = 16;
/** Words of the estimator's dictionaries this long or longer are looked for as written. */
const LONG_WORD = 8;

export const RANDOM_VERDICT: StrengthResult = {
  score: 3,
  label: "Strong",
  reason: "Long and random: no word or pattern long enough to make it guessable.",
};

function classes(p: string): number {
  return (
    Number(/[a-z]/.test(p)) +
    Number(/[A-Z]/.test(p)) +
    Number(/[0-9]/.test(p)) +
    Number(/[^a-zA-Z0-9]/.test(p))
  );
}

/** A run of 4 or more characters whose code points step by the same small amount ("abcd", "9753"). */
function hasSequence(p: string): boolean {
  let run = 1;
  for (let i = 2; i < p.length; i++) {
    const a = p.charCodeAt(i - 2) - p.charCodeAt(i - 1);
    const b = p.charCodeAt(i - 1) - p.charCodeAt(i);
    run = a === b && Math.abs(a) <= 5 ? run + 1 : 1;
    if (run >= 3) return true;
  }
  return false;
}

/** The estimator's keyboard maps: for each key, its neighbours as "unshifted+shifted" strings. */
export type Keyboards = Record<string, Record<string, (string | null)[]>>;
export type LongWords = { words: ReadonlySet<string>; longest: number; keyboards: Keyboards };

/** Six keys in a row, each next to the one before on one of the keyboards ("qwerty", "2wsxdr"). */
function hasKeyboardWalk(p: string, keyboards: Keyboards): boolean {
  for (const graph of Object.values(keyboards)) {
    let run = 0;
    for (let i = 1; i < p.length; i++) {
      const near = graph[p[i - 1]!] ?? graph[p[i - 1]!.toLowerCase()];
      run = near?.some((n) => n?.includes(p[i]!)) ? run + 1 : 0;
      if (run >= 5) return true;
    }
  }
  return false;
}

/** The dictionary words of 8 letters or more, lower case, as one set (built once per worker). */
export function longWords(lists: Record<string, unknown>, keyboards: Keyboards): LongWords {
  const words = new Set<string>();
  let longest = 0;
  for (const list of Object.values(lists)) {
    if (!Array.isArray(list)) continue;
    for (const w of list) {
      if (typeof w !== "string" || w.length < LONG_WORD) continue;
      words.add(w.toLowerCase());
      longest = Math.max(longest, w.length);
    }
  }
  return { words, longest, keyboards };
}

function hasLongWord(p: string, { words, longest }: LongWords): boolean {
  const lower = p.toLowerCase();
  const reversed = [...lower].reverse().join("");
  for (const s of [lower, reversed]) {
    for (let i = 0; i + LONG_WORD <= s.length; i++) {
      for (let j = i + LONG_WORD; j <= Math.min(s.length, i + longest); j++)
        if (words.has(s.slice(i, j))) return true;
    }
  }
  return false;
}

/** Whether the password can skip the estimator: long, varied, and none of the long patterns cheap to find. */
export function isLongRandom(p: string, words: LongWords): boolean {
  if (p.length < RANDOM_MIN_LENGTH) return false;
  if (new Set(p).size < Math.ceil(p.length * 0.6)) return false;
  if (classes(p) < 2) return false;
  if (/\d{5,}/.test(p)) return false;
  if (hasSequence(p) || hasKeyboardWalk(p, words.keyboards)) return false;
  return !hasLongWord(p, words);
}
