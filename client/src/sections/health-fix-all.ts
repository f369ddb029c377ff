/**
 * "Fix all that can be fixed": the entries the reset automation can reset (health-fix.ts's rule:
 * an address, and a username that is a connected mailbox) are reset one after another, the
 * number of live browsers a person may hold being small and every reset needing one; the others
 * are listed with what the person must do. Each reset is the reset tool's own (the manager follows
 * and saves it, and resumes it at the next unlock if the tab closes); the queue adds the order,
 * progress, pause and cancel, and a summary. Entries fixed in this visit are never queued again,
 * and a fixed entry's findings leave with the re-check that follows the queue. The queue is kept on
 * the device while it runs (fix-queue.ts): a tab closed half-way offers it again on the next visit.
 */
import { ApiError } from "../../../core/api";
import { describeStartError } from "../entry-tools/reset";
import type { EntryHealth, Finding } from "../health/detectors";
import { keepQueue, keptQueue, leftIn, type KeptQueue } from "../health/fix-queue";
import { el } from "../pages/common";
import { resumeResets, type LiveReset } from "../reset/manager";
import { TERMINAL } from "../reset/resets";
import { mountResetView } from "../reset/view";
import { canReset, changePasswordUrl, entryLink, type FixTools } from "./health-fix";

/** Findings a new password fixes (missing 2FA needs the person at the site). */
const PASSWORD_FINDINGS: Finding[] = ["exposed", "reused", "weak", "old"];
/** The reset budget is a few a minute per person: a refused start waits this long and asks again. */
const BUDGET_WAIT_MS = 60_000;

type Outcome = { id: string; name: string; result: "fixed" | "failed" | "cancelled"; why?: string };

/** Entries fixed during this page visit, so a second run does not redo them. */
const fixedThisVisit = new Set<string>();

function waitForEnd(
  r: LiveReset,
  manager: FixTools["manager"],
): Promise<Omit<Outcome, "id" | "name">> {
  return new Promise((resolve) => {
    const check = () => {
      const s = r.status?.status;
      let out: Omit<Outcome, "id" | "name"> | null = null;
      if (r.saved)
        out = r.saved.uncertain
          ? {
              result: "failed",
              why: "stopped while setting the new password; the one being set is kept in the entry's notes",
            }
          : { result: "fixed" };
      else if (s === "cancelled") out = { result: "cancelled" };
      else if (s === "failed" && !r.status?.newPassword)
        out = { result: "failed", why: r.status?.error ?? "the reset failed" };
      if (!out) return;
      manager.removeEventListener("change", check);
      resolve(out);
    };
    manager.addEventListener("change", check);
    check();
  });
}

export function fixAllPanel(
  entries: EntryHealth[],
  tools: FixTools,
  hooks: { started(): void; done(): void },
): HTMLElement {
  const { app, manager } = tools;
  const candidates = entries.filter(
    (e) => PASSWORD_FINDINGS.some((f) => e[f]) && !fixedThisVisit.has(e.id),
  );
  // Worst first: exposed, then reused, weak, old (the order of the findings on the page).
  const rank = (e: EntryHealth) => PASSWORD_FINDINGS.findIndex((f) => e[f]);
  const auto = candidates
    .filter((e) => canReset(tools.items.get(e.id), tools.mailboxes))
    .sort((a, b) => rank(a) - rank(b));
  const manual = candidates.filter((e) => !auto.includes(e));

  const start = el("button", {
    type: "button",
    textContent: `Fix all that can be fixed (${auto.length})`,
  });
  const interrupted = el("div", {
    className: "health-fix-interrupted",
    role: "status",
    hidden: true,
  });
  start.disabled = auto.length === 0;
  const pause = el("button", {
    type: "button",
    className: "secondary",
    textContent: "Pause",
    hidden: true,
  });
  const cancel = el("button", {
    type: "button",
    className: "secondary",
    textContent: "Cancel",
    hidden: true,
  });
  const overall = el("progress", { max: Math.max(1, auto.length), value: 0, hidden: true });
  overall.setAttribute("aria-label", "Fix all progress");
  const status = el("p", { className: "hint", role: "status" });
  status.setAttribute("aria-live", "polite");
  const rows = el("ul", { className: "cards health-queue" });
  rows.setAttribute("aria-label", "Resets in the queue");
  const summary = el("div", { className: "health-fix-summary" });
  const box = el(
    "section",
    { className: "card health-fix-all" },
    el("h2", { textContent: "Fix all" }),
    el("p", {
      className: "hint",
      textContent: `${auto.length} of ${candidates.length} entries with a password problem can be reset for you, one at a time (each reset drives a browser at the site and reads the reset email from your connected mailbox). The others need you at the site.`,
    }),
    interrupted,
    el("div", { className: "row" }, start, pause, cancel),
    overall,
    status,
    rows,
    summary,
  );

  let paused = false;
  let cancelled = false;
  let current: LiveReset | null = null;
  let resume: (() => void) | null = null;

  pause.addEventListener("click", () => {
    paused = !paused;
    pause.textContent = paused ? "Resume" : "Pause";
    status.textContent = paused
      ? "Paused: the reset under way finishes, the next waits."
      : "Resumed.";
    if (!paused) resume?.();
  });
  cancel.addEventListener("click", () => {
    cancelled = true;
    cancel.disabled = pause.disabled = true;
    status.textContent = "Cancelling…";
    resume?.();
    if (current && !current.saved)
      void manager.resets.cancel(current.task.taskId).catch(() => undefined);
  });

  const userId = app.session.userId;
  const nameOf = (id: string) =>
    entries.find((e) => e.id === id)?.name ?? tools.items.get(id)?.name ?? "An entry";
  let running = false;
  start.addEventListener("click", () => {
    interrupted.hidden = true;
    void run(auto, []);
  });

  // A queue a closed tab left: offered again, never run by itself.
  void keptQueue(app.db, userId).then((q) => {
    if (!q || running) return;
    const left = leftIn(q).length;
    const resumeButton = el("button", { type: "button", textContent: "Resume" });
    const dismiss = el("button", {
      type: "button",
      className: "secondary",
      textContent: "Dismiss",
    });
    resumeButton.addEventListener("click", () => void resumeKept(q));
    dismiss.addEventListener("click", () => {
      interrupted.hidden = true;
      void keepQueue(app.db, userId, null);
    });
    interrupted.replaceChildren(
      el("p", { textContent: `Fixing was interrupted: ${left} left.` }),
      el("div", { className: "row" }, resumeButton, dismiss),
    );
    interrupted.hidden = false;
  });

  /**
   * Picks up a kept queue. The check this page just ran is the re-check: an entry no longer flagged
   * was fixed (the reset under way when the tab closed, saved at unlock), a reset still running is
   * followed rather than started again, and only entries still flagged are reset.
   */
  async function resumeKept(q: KeptQueue) {
    interrupted.hidden = true;
    await resumeResets(app);
    const flagged = new Set(
      entries.filter((e) => PASSWORD_FINDINGS.some((f) => e[f])).map((e) => e.id),
    );
    const prior: Outcome[] = q.outcomes.map((o) => ({ ...o, name: nameOf(o.id) }));
    const queue: { id: string; name: string }[] = [];
    const followed = new Set<string>();
    for (const id of leftIn(q)) {
      if (manager.forEntry(id)) followed.add(id);
      if (followed.has(id) || auto.some((e) => e.id === id)) queue.push({ id, name: nameOf(id) });
      else if (!flagged.has(id)) prior.push({ id, name: nameOf(id), result: "fixed" });
      else
        prior.push({
          id,
          name: nameOf(id),
          result: "failed",
          why: "it can no longer be reset here (its mailbox or address changed)",
        });
    }
    for (const o of prior) if (o.result === "fixed") fixedThisVisit.add(o.id);
    await run(queue, prior, followed);
  }

  /** `followed`: entries whose reset from before is followed to its end, whatever its state. */
  async function run(
    queue: { id: string; name: string }[],
    prior: Outcome[],
    followed = new Set<string>(),
  ) {
    running = true;
    start.disabled = true;
    hooks.started();
    pause.hidden = cancel.hidden = overall.hidden = false;
    const outcomes: Outcome[] = [...prior];
    overall.max = Math.max(1, queue.length + prior.length);
    overall.value = prior.length;
    const kept: KeptQueue = {
      ids: [...prior.map((o) => o.id), ...queue.map((e) => e.id)],
      outcomes: prior.map(({ id, result, why }) => ({ id, result, why })),
    };
    await keepQueue(app.db, userId, kept);
    const rowOf = new Map(
      queue.map((e) => {
        const state = el("p", { className: "reason", textContent: "Waiting" });
        const live = el("div");
        const li = el(
          "li",
          { dataset: { id: e.id, state: "waiting" } },
          el("p", { className: "name" }, entryLink(app, e.id, e.name)),
          state,
          live,
        );
        rows.append(li);
        return [e.id, { li, state, live }] as const;
      }),
    );
    for (const e of queue) {
      if (paused && !cancelled) await new Promise<void>((r) => (resume = r));
      resume = null;
      const row = rowOf.get(e.id)!;
      if (cancelled) {
        outcomes.push({ id: e.id, name: e.name, result: "cancelled" });
        kept.outcomes.push({ id: e.id, result: "cancelled" });
        row.li.dataset.state = "cancelled";
        row.state.textContent = "Not started: cancelled";
        continue;
      }
      const item = tools.items.get(e.id)!;
      row.li.dataset.state = "running";
      row.state.textContent = "Resetting…";
      status.textContent = `Resetting ${e.name} (${outcomes.length + 1} of ${overall.max})…`;
      let out: Omit<Outcome, "id" | "name">;
      try {
        // One already under way for the entry (a kept queue's, followed since the unlock) is not started again.
        const live = manager.forEntry(e.id);
        current =
          live &&
          (followed.has(e.id) || !(live.saved || (live.status && TERMINAL.has(live.status.status))))
            ? live
            : null;
        while (!current) {
          try {
            current = await manager.start({
              entryId: e.id,
              serviceUrl: item.url!,
              email: item.username.trim(),
            });
          } catch (err) {
            if (!(err instanceof ApiError && err.status === 429) || cancelled) throw err;
            row.state.textContent = "Waiting for the reset limit…";
            await new Promise((r) => setTimeout(r, BUDGET_WAIT_MS));
          }
        }
        const unmount = mountResetView(row.live, manager, current);
        out = await waitForEnd(current, manager);
        unmount();
      } catch (err) {
        out = { result: cancelled ? "cancelled" : "failed", why: describeStartError(err) };
      }
      current = null;
      outcomes.push({ id: e.id, name: e.name, ...out });
      kept.outcomes.push({ id: e.id, ...out });
      await keepQueue(app.db, userId, kept);
      if (out.result === "fixed") fixedThisVisit.add(e.id);
      row.li.dataset.state = out.result;
      row.state.textContent =
        out.result === "fixed"
          ? "Fixed: new password saved"
          : out.result === "cancelled"
            ? "Cancelled"
            : `Failed: ${out.why}`;
      overall.value = outcomes.length;
    }
    pause.hidden = cancel.hidden = true;
    await keepQueue(app.db, userId, null);
    status.textContent = cancelled ? "Cancelled." : "Done.";
    showSummary(outcomes);
    hooks.done();
  }

  function showSummary(outcomes: Outcome[]) {
    const fixed = outcomes.filter((o) => o.result === "fixed");
    const failed = outcomes.filter((o) => o.result === "failed");
    const stopped = outcomes.filter((o) => o.result === "cancelled");
    const list = (items: HTMLElement[]) => el("ul", {}, ...items);
    summary.replaceChildren(
      el("h3", { textContent: "Summary" }),
      el("p", { dataset: { count: "fixed" }, textContent: `Fixed: ${fixed.length}` }),
      list(fixed.map((o) => el("li", {}, entryLink(app, o.id, o.name)))),
      el("p", { dataset: { count: "failed" }, textContent: `Failed: ${failed.length}` }),
      list(failed.map((o) => el("li", {}, entryLink(app, o.id, o.name), `: ${o.why}`))),
      ...(stopped.length
        ? [
            el("p", {
              dataset: { count: "cancelled" },
              textContent: `Cancelled: ${stopped.length}`,
            }),
          ]
        : []),
      el("p", { dataset: { count: "manual" }, textContent: `Needs you: ${manual.length}` }),
      list(
        manual.map((e) =>
          el(
            "li",
            { dataset: { id: e.id } },
            entryLink(app, e.id, e.name),
            e.host
              ? el(
                  "span",
                  {},
                  ": change it at ",
                  el("a", {
                    href: changePasswordUrl(e.host),
                    target: "_blank",
                    rel: "noopener noreferrer",
                    textContent: e.host,
                  }),
                  " (its Fix below has a new password ready)",
                )
              : ": change it at the service (its Fix below has a new password ready)",
          ),
        ),
      ),
    );
  }

  return box;
}
