/**
 * Password strength with a reason (zxcvbn-ts: dictionaries, keyboard patterns, dates, repeats).
 * The estimator and its dictionaries (about a megabyte) are imported on first use, so the vault
 * page's first load does not carry them; the English common-word list also feeds the passphrase
 * generator.
 */
export type Strength = {
  score: 0 | 1 | 2 | 3 | 4;
  label: string;
  reason: string;
  crackTime: string;
};

const LABELS = ["Very weak", "Weak", "Fair", "Strong", "Very strong"] as const;

type Checker = { check(password: string, userInputs?: string[]): Strength };
/** The estimator, the passphrase words, and the estimator's word lists and keyboard maps (for the health check's fast path). */
type Tools = {
  checker: Checker;
  words: string[];
  dictionary: Record<string, unknown>;
  graphs: Record<string, Record<string, (string | null)[]>>;
};
let loading: Promise<Tools> | undefined;

/** Loads the estimator and the word list once per page. */
export function strengthTools(): Promise<Tools> {
  loading ??= (async () => {
    const [core, common, en] = await Promise.all([
      import("@zxcvbn-ts/core"),
      import("@zxcvbn-ts/language-common"),
      import("@zxcvbn-ts/language-en"),
    ]);
    const dictionary = { ...common.dictionary, ...en.dictionary };
    const factory = new core.ZxcvbnFactory({
      translations: en.translations,
      graphs: common.adjacencyGraphs,
      dictionary,
    });
    const checker: Checker = {
      check(password, userInputs = []) {
        const r = factory.check(password, userInputs);
        const score = r.score as Strength["score"];
        const reason = [r.feedback.warning, ...r.feedback.suggestions].filter(Boolean).join(" ");
        const crackTime = String(r.crackTimes?.offlineSlowHashingXPerSecond?.display ?? "");
        return {
          score,
          label: LABELS[score],
          reason:
            reason ||
            (score >= 3
              ? "Long and unpredictable: no common words or patterns found."
              : "Make it longer: add words or characters."),
          crackTime,
        };
      },
    };
    // Passphrase words: the 16,384 most common English words of 4 to 8 lower-case letters
    // (14 bits a word: five words are 70 bits).
    const source = (en.dictionary as Record<string, unknown>)["commonWords-en"];
    const words = (Array.isArray(source) ? (source as string[]) : [])
      .filter((w) => /^[a-z]{4,8}$/.test(w))
      .slice(0, 16_384);
    return { checker, words, dictionary, graphs: common.adjacencyGraphs as Tools["graphs"] };
  })();
  return loading;
}
