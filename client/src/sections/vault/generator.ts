/**
 * The entry form's password generator and strength meter. The generator follows the registry's
 * password rules for the site typed in the form (length range, required classes, allowed
 * symbols); the meter gives a score and the reason for it. Both load what they need (the rules
 * file, the estimator and its dictionaries) the first time they are used.
 */
import {
  DEFAULT_LENGTH,
  DEFAULT_WORDS,
  generatePassphrase,
  generatePassword,
  rulesFor,
  withinRules,
} from "../../../../src/kernel/password-generator";
import type { PasswordRequirements as Requirements } from "../../../../src/kernel/password-rules";
import { passwordRules } from "../../password-generator";
import { el, scope } from "../../pages/common";

const MARKUP = `
<details id="generator" class="generator">
  <summary>Password generator</summary>
  <fieldset class="gen-kind">
    <legend>Make</legend>
    <label class="inline"><input type="radio" name="gen-kind" id="gen-chars" value="chars" checked> Random characters</label>
    <label class="inline"><input type="radio" name="gen-kind" id="gen-wordsmode" value="words"> Words (a passphrase)</label>
  </fieldset>
  <div id="gen-char-options">
    <label for="gen-length">Length</label>
    <input id="gen-length" type="number" min="4" max="128" value="${DEFAULT_LENGTH}">
    <div class="gen-classes">
      <label class="inline"><input type="checkbox" id="gen-lower" checked> Lower case (a–z)</label>
      <label class="inline"><input type="checkbox" id="gen-upper" checked> Upper case (A–Z)</label>
      <label class="inline"><input type="checkbox" id="gen-digits" checked> Digits (2–9)</label>
      <label class="inline"><input type="checkbox" id="gen-symbols" checked> Symbols</label>
    </div>
  </div>
  <div id="gen-word-options" hidden>
    <label for="gen-words">Number of words</label>
    <input id="gen-words" type="number" min="3" max="12" value="${DEFAULT_WORDS}">
  </div>
  <p id="gen-rules" class="hint" aria-live="polite"></p>
  <div class="row"><button type="button" id="generate" class="secondary">Generate a password</button></div>
</details>`;

/** The form's own lookups (its dialog, not the document). */
type Lookup = ReturnType<typeof scope>;

export type StrengthView = { update(): void; reset(): void };

/** Mounts the generator into its box; `changed` is called after it fills the password. */
export function mountGenerator(changed: () => void, at: Lookup): { reset(): void } {
  at.$("generator-box").innerHTML = MARKUP;
  const pw = at.input("f-password");
  const words = () => at.input("gen-wordsmode").checked;
  const site = () => at.input("f-website").value || at.input("f-url").value;

  async function current(): Promise<{ service: string | null; rules: Requirements }> {
    return rulesFor(await passwordRules(), site());
  }

  async function describeRules() {
    const { service, rules } = await current();
    const parts = [`${rules.minLength ?? 8}–${rules.maxLength ?? 64} characters`];
    if (rules.requireUppercase) parts.push("upper case");
    if (rules.requireLowercase) parts.push("lower case");
    if (rules.requireNumbers) parts.push("digits");
    if (rules.requireSymbols)
      parts.push(`symbols${rules.specificSymbols ? ` (only ${rules.specificSymbols})` : ""}`);
    if (rules.disallowedChars) parts.push(`never ${rules.disallowedChars}`);
    at.$("gen-rules").textContent = service
      ? `${service} asks for ${parts.join(", ")}.`
      : `No known rules for this site: ${parts.join(", ")}.`;
  }

  async function generate() {
    const { rules } = await current();
    let value: string;
    if (words()) {
      const { strengthTools } = await import("../../health/strength");
      const { words: list } = await strengthTools();
      value = generatePassphrase(
        list,
        Math.min(12, Math.max(3, Number(at.input("gen-words").value) || DEFAULT_WORDS)),
        rules,
      );
    } else {
      const chosen = {
        length: Number(at.input("gen-length").value) || DEFAULT_LENGTH,
        lower: at.input("gen-lower").checked,
        upper: at.input("gen-upper").checked,
        digits: at.input("gen-digits").checked,
        symbols: at.input("gen-symbols").checked,
      };
      const { options, forced } = withinRules(chosen, rules);
      at.input("gen-length").value = String(options.length);
      for (const [id, on] of [
        ["gen-lower", options.lower],
        ["gen-upper", options.upper],
        ["gen-digits", options.digits],
        ["gen-symbols", options.symbols],
      ] as const)
        at.input(id).checked = on;
      value = generatePassword(options, rules);
      await describeRules();
      if (forced.length)
        at.$("gen-rules").textContent += ` Changed to follow them: ${forced.join(", ")}.`;
    }
    pw.value = value;
    // A generated password is shown, so the person sees what will be saved.
    pw.type = "text";
    at.$("f-password-show").textContent = "Hide";
    at.$("f-password-show").setAttribute("aria-pressed", "true");
    pw.dispatchEvent(new Event("input", { bubbles: true }));
    changed();
  }

  at.$("generator").addEventListener("toggle", () => void describeRules());
  for (const id of ["f-website", "f-url"])
    at.input(id).addEventListener("change", () => void describeRules());
  for (const r of document.querySelectorAll<HTMLInputElement>('input[name="gen-kind"]'))
    r.addEventListener("change", () => {
      at.$("gen-char-options").hidden = words();
      at.$("gen-word-options").hidden = !words();
    });
  at.$("generate").addEventListener(
    "click",
    () =>
      void generate().catch(
        (err: unknown) =>
          (at.$("gen-rules").textContent =
            `Cannot generate: ${err instanceof Error ? err.message : String(err)}`),
      ),
  );
  return {
    reset() {
      (at.$("generator") as HTMLDetailsElement).open = false;
      at.$("gen-rules").textContent = "";
    },
  };
}

/** The strength meter under the password field: score, label and reason, updated as one types. */
export function mountStrength(at: Lookup): StrengthView {
  const pw = at.input("f-password");
  const meter = at.$("strength-meter") as HTMLMeterElement;
  const text = at.$("strength-text");
  let asked = 0;
  const update = () => {
    const mine = ++asked;
    const value = pw.value;
    if (!value) {
      meter.value = 0;
      at.$("strength").dataset.score = "";
      text.textContent = "";
      return;
    }
    void import("../../health/strength")
      .then((m) => m.strengthTools())
      .then(({ checker }) => {
        if (mine !== asked) return;
        const userInputs = [
          at.input("f-name").value,
          at.input("f-username").value,
          at.input("f-website").value,
        ].filter(Boolean);
        const s = checker.check(value, userInputs);
        meter.value = s.score;
        at.$("strength").dataset.score = String(s.score);
        text.replaceChildren(
          el("strong", { textContent: s.label }),
          `: ${s.reason}${s.crackTime ? ` (guessed in ${s.crackTime} by an offline attack)` : ""}`,
        );
      });
  };
  pw.addEventListener("input", update);
  return {
    update,
    reset() {
      asked++;
      meter.value = 0;
      at.$("strength").dataset.score = "";
      text.textContent = "";
    },
  };
}
