/**
 * Vault health (/health): a score and counts, then each finding with its entries, each linked to
 * the entry and with a way to fix it. Everything is computed on this device, on decrypted entries,
 * in a Web Worker (health/worker.ts) so the page stays responsive; the server is asked only for
 * breach ranges by five-character prefix (health/breach.ts).
 */
import { OfflineError } from "../../../core/api";
import {
  DEFAULT_MAX_AGE_DAYS,
  type EntryHealth,
  type Finding,
  type HealthReport,
} from "../health/detectors";
import { gatherItems, workerRange } from "../health/gather";
import { HealthWorker } from "../health/run";
import { el } from "../pages/common";
import { passwordRules } from "../password-generator";
import type { AppContext, Unmount } from "../shell/context";
import { entryLink, fixPanel, type FixTools } from "./health-fix";
import { fixAllPanel } from "./health-fix-all";
import { activeMailboxes } from "../reset/mailboxes";
import { resetManager } from "../reset/manager";

const MAX_AGE_KEY = "health:maxAgeDays";
const AGES: [number, string][] = [
  [180, "6 months"],
  [365, "1 year"],
  [730, "2 years"],
];

export const FINDING_TEXT: Record<Finding, { title: string; hint: string }> = {
  exposed: {
    title: "Exposed in data breaches",
    hint: "These passwords appear in known breaches: attackers try them first. Change them now.",
  },
  reused: {
    title: "Reused passwords",
    hint: "One breach opens every account that shares a password (or a trivial variation of it).",
  },
  weak: { title: "Weak passwords", hint: "Easy to guess: the reason is the strength estimator's." },
  old: { title: "Old passwords", hint: "Not changed for a long time." },
  no2fa: {
    title: "Two-factor authentication available",
    hint: "These services offer authenticator-app codes, but the entry holds no TOTP secret.",
  },
};
const ORDER: Finding[] = ["exposed", "reused", "weak", "old", "no2fa"];
/** Entries drawn per finding before "Show more". */
const PAGE = 50;

function reasonOf(f: Finding, e: EntryHealth, names: Map<string, string>): string {
  switch (f) {
    case "exposed":
      return `Seen ${e.exposed!.count.toLocaleString()} time${e.exposed!.count === 1 ? "" : "s"} in breaches.`;
    case "reused": {
      const more = e.reused!.size - 1 - e.reused!.others.length;
      const others =
        e.reused!.others.map((id) => names.get(id) ?? "another entry").join(", ") +
        (more > 0 ? ` and ${more} other${more === 1 ? "" : "s"}` : "");
      return e.reused!.kind === "same"
        ? `Same password as ${others}.`
        : `A variation of the password of ${others}.`;
    }
    case "weak":
      return `${e.weak!.label}: ${e.weak!.reason}`;
    case "old":
      return e.old!.known
        ? `Changed ${e.old!.days} days ago.`
        : `Not changed since it was added to the vault, ${e.old!.days} days ago.`;
    case "no2fa":
      return "The site offers sign-in codes from an authenticator app; this entry holds none.";
  }
}

export function mount(root: HTMLElement, app: AppContext): Unmount {
  let gone = false;
  root.classList.add("section");
  const status = el("p", { className: "hint", role: "status" });
  status.setAttribute("aria-live", "polite");
  const progress = el("progress", { max: 1, value: 0 });
  progress.setAttribute("aria-label", "Health check progress");
  const age = el(
    "select",
    { name: "max-age" },
    ...AGES.map(([d, t]) => el("option", { value: String(d), textContent: t })),
  );
  const recheck = el("button", {
    type: "button",
    className: "secondary",
    textContent: "Check again",
  });
  const summary = el("div", { className: "card health-summary" });
  const findings = el("div", { className: "health-findings" });
  // The queue's panel outlives the re-check that follows it, so its summary stays on screen.
  const fixAll = el("div");
  let queueRan = false;
  const error = el("p", { className: "error", role: "alert" });
  root.replaceChildren(
    el("h1", { textContent: "Vault health", tabIndex: -1 }),
    el("p", {
      className: "hint",
      textContent:
        "Checked on this device. To look a password up in known breaches, only the first five characters of its SHA-1 hash leave it; the comparison happens here.",
    }),
    el("div", { className: "row health-controls" }, el("label", {}, "Old after ", age), recheck),
    progress,
    status,
    error,
    summary,
    fixAll,
    findings,
  );

  const manager = resetManager(app);
  // Made on first use and kept for the visit: the worker keeps the breach ranges it was given.
  let worker: HealthWorker | null = null;
  const range = workerRange(
    app.api,
    (s) => !gone && (status.textContent = `Waiting ${s} s for the breach check's rate limit…`),
  );
  let running = false;

  async function run() {
    if (running) return;
    running = true;
    findings.setAttribute("aria-busy", "true");
    recheck.disabled = true;
    error.textContent = "";
    progress.hidden = false;
    progress.value = 0;
    try {
      status.textContent = "Opening your entries…";
      const entries = await app.vault.entries();
      const { items, unreadable } = await gatherItems(
        app.vault,
        entries,
        (d, t) => !gone && (progress.value = (d / t) * 0.3),
      );
      status.textContent = "Checking passwords…";
      const [rules, mailboxes] = await Promise.all([
        passwordRules(),
        activeMailboxes(app.api).catch(() => []),
      ]);
      if (gone) return;
      worker ??= new HealthWorker(range);
      const report = await worker.check(
        {
          items,
          totp: rules.totp ?? [],
          maxAgeDays: Number(age.value) || DEFAULT_MAX_AGE_DAYS,
          breach: navigator.onLine,
        },
        (d, t) => !gone && (progress.value = 0.3 + (d / t) * 0.7),
      );
      if (gone) return;
      const tools: FixTools = {
        app,
        manager,
        mailboxes: mailboxes.map((m) => m.email.toLowerCase()),
        rules,
        items: new Map(items.map((i) => [i.id, i])),
      };
      draw(report, unreadable, tools);
      status.textContent = `Checked ${report.checked} password${report.checked === 1 ? "" : "s"}.`;
    } catch (e) {
      error.textContent =
        e instanceof OfflineError
          ? "The health check needs a connection for the breach lookup."
          : `The health check failed: ${e instanceof Error ? e.message : String(e)}`;
    } finally {
      running = false;
      findings.setAttribute("aria-busy", "false");
      recheck.disabled = false;
      progress.hidden = true;
    }
  }

  function draw(report: HealthReport, unreadable: number, tools: FixTools) {
    const names = new Map([...tools.items.values()].map((i) => [i.id, i.name]));
    const counts = el(
      "ul",
      { className: "health-counts" },
      ...ORDER.map((f) =>
        // A count links to its list; a zero has no list to go to.
        el(
          "li",
          { dataset: { finding: f } },
          report.counts[f] > 0
            ? el(
                "a",
                { href: `#health-${f}`, textContent: `${FINDING_TEXT[f].title}: ` },
                el("strong", { textContent: String(report.counts[f]) }),
              )
            : `${FINDING_TEXT[f].title}: 0`,
        ),
      ),
    );
    const score = el("meter", {
      min: 0,
      max: 100,
      low: 50,
      high: 80,
      optimum: 100,
      value: report.score,
    });
    score.setAttribute("aria-label", "Health score");
    const notes: string[] = [];
    if (report.exposureUnchecked)
      notes.push(
        `${report.exposureUnchecked} password${report.exposureUnchecked === 1 ? " was" : "s were"} not looked up in breaches${report.exposureError ? ` (${report.exposureError})` : ""}.`,
      );
    if (unreadable)
      notes.push(
        `${unreadable} entr${unreadable === 1 ? "y" : "ies"} could not be opened on this device and ${unreadable === 1 ? "was" : "were"} not checked.`,
      );
    summary.replaceChildren(
      el("h2", { textContent: "Score" }),
      el(
        "p",
        { className: "health-score" },
        el("strong", { id: "health-score", textContent: String(report.score) }),
        " / 100 ",
        score,
      ),
      counts,
      ...notes.map((n) => el("p", { className: "hint", textContent: n })),
    );
    findings.replaceChildren(
      ...ORDER.filter((f) => report.counts[f] > 0).map((f) => {
        const list = el("ul", { className: "cards" });
        list.setAttribute("aria-label", FINDING_TEXT[f].title);
        // A large vault can have thousands of findings: drawn a page at a time, so the page never freezes.
        const all = report.entries.filter((x) => x[f]);
        const more = el("button", { type: "button", className: "secondary" });
        const next = () => {
          const from = list.childElementCount;
          for (const e of all.slice(from, from + PAGE)) list.append(card(f, e, names, tools));
          const left = all.length - list.childElementCount;
          more.hidden = left === 0;
          more.textContent = `Show ${Math.min(left, PAGE)} more of ${left}`;
        };
        more.addEventListener("click", next);
        next();
        return el(
          "section",
          { id: `health-${f}`, className: "health-finding", dataset: { finding: f } },
          el("h2", { textContent: `${FINDING_TEXT[f].title} (${report.counts[f]})` }),
          el("p", { className: "hint", textContent: FINDING_TEXT[f].hint }),
          list,
          more,
        );
      }),
    );
    if (!queueRan) {
      fixAll.replaceChildren(
        fixAllPanel(report.entries, tools, {
          started: () => (queueRan = true),
          // A re-check after the queue: fixed entries leave the findings.
          done: () => void run(),
        }),
      );
    }
    if (report.entries.length === 0)
      findings.append(
        el("p", {
          className: "card",
          textContent: "Nothing to fix: no weak, reused, exposed or old passwords found.",
        }),
      );
  }

  function card(
    f: Finding,
    e: EntryHealth,
    names: Map<string, string>,
    tools: FixTools,
  ): HTMLLIElement {
    const link = entryLink(app, e.id, e.name);
    const li = el(
      "li",
      { dataset: { id: e.id, finding: f } },
      el(
        "p",
        { className: "name" },
        link,
        e.host ? el("span", { className: "muted", textContent: ` ${e.host}` }) : "",
      ),
      el("p", { className: "reason", textContent: reasonOf(f, e, names) }),
    );
    li.append(fixPanel(f, e, tools));
    return li;
  }

  age.addEventListener("change", () => {
    void app.db.setMeta(MAX_AGE_KEY, Number(age.value));
    void run();
  });
  recheck.addEventListener("click", () => void run());
  void app.db.meta<number>(MAX_AGE_KEY).then((d) => {
    if (d && AGES.some(([v]) => v === d)) age.value = String(d);
    else age.value = String(DEFAULT_MAX_AGE_DAYS);
    void run();
  });
  return () => {
    gone = true;
    worker?.close();
  };
}
