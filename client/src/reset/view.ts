/** One reset as the person follows it: named steps, the latest screenshot, a code prompt, cancel. */
import { ApiError } from "../../../core/api";
import { el } from "../pages/common";
import type { LiveReset, ResetManager } from "./manager";
import { STEP_LABELS, TERMINAL } from "./resets";

const STEPS = Object.keys(STEP_LABELS);

function headline(r: LiveReset): string {
  const s = r.status?.status;
  if (r.saved?.uncertain)
    return `Password reset stopped while setting the new password: it may already be in effect. It is kept in the notes of “${r.saved.entryName}”; the saved password is unchanged.`;
  if (r.saved) return `Password reset: the new password is saved to “${r.saved.entryName}”.`;
  if (s === "completed") return "Password reset: completed.";
  if (s === "failed") return `Password reset failed: ${r.status?.error ?? "unknown reason"}.`;
  if (s === "cancelled")
    return "Password reset cancelled: it was stopped and nothing was changed here.";
  if (r.interrupted) return "Password reset: reconnecting to its progress…";
  if (s === "waiting_for_otp") return `Password reset: ${r.task.service} asks for a one-time code.`;
  if (s === "waiting_for_email") return "Password reset: waiting for the reset email…";
  if (s === "pending" || !s) return "Password reset: queued…";
  return "Password reset: in progress…";
}

function stepState(r: LiveReset, step: string): string {
  const s = r.status?.status;
  if (s === "completed") return "done";
  const at = r.reached.at(-1);
  const i = STEPS.indexOf(step);
  const cur = at ? STEPS.indexOf(at) : -1;
  if (i < cur) return "done";
  if (i === cur) return s === "failed" ? "failed" : s === "cancelled" ? "stopped" : "current";
  return s && TERMINAL.has(s) ? "skipped" : "pending";
}

/** Renders `r` into `root` and keeps it current; returns the unmount. */
export function mountResetView(root: HTMLElement, manager: ResetManager, r: LiveReset): () => void {
  const status = el("p", { className: "reset-status", role: "status" });
  status.setAttribute("aria-live", "polite");
  const steps = el("ol", { className: "reset-steps" });
  steps.setAttribute("aria-label", "Reset steps");
  const shot = el("img", {
    className: "reset-shot",
    alt: `Screenshot of the reset at ${r.task.service}`,
    hidden: true,
  });
  const codeInput = el("input", {
    name: "otp",
    autocomplete: "one-time-code",
    inputMode: "text",
    maxLength: 32,
  });
  const codeError = el("p", { className: "error", role: "alert" });
  const otpForm = el(
    "form",
    { className: "reset-otp", hidden: true },
    el("label", {}, "One-time code", codeInput),
    el("div", { className: "row" }, el("button", { type: "submit", textContent: "Send code" })),
    codeError,
  );
  const cancel = el("button", {
    type: "button",
    className: "secondary",
    textContent: "Cancel reset",
  });
  const box = el(
    "div",
    { className: "card reset-live", dataset: { task: r.task.taskId } },
    status,
    steps,
    otpForm,
    el("div", { className: "row" }, cancel),
    shot,
  );
  root.append(box);

  function render() {
    const s = r.status?.status;
    box.dataset.status = r.saved ? "saved" : (s ?? "pending");
    status.textContent = headline(r);
    steps.replaceChildren(
      ...STEPS.map((step) => {
        const state = stepState(r, step);
        return el(
          "li",
          { dataset: { step, state } },
          `${STEP_LABELS[step]}`,
          el("span", { className: "muted", textContent: ` — ${state}` }),
        );
      }),
    );
    if (r.screenshot) {
      shot.src = r.screenshot;
      shot.hidden = false;
    }
    otpForm.hidden = s !== "waiting_for_otp";
    cancel.hidden = !!s && TERMINAL.has(s);
  }

  otpForm.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const code = codeInput.value.trim();
    codeError.textContent = "";
    if (!/^[A-Za-z0-9-]{1,32}$/.test(code)) {
      codeError.textContent = "Enter the code as it was sent: letters, digits or dashes.";
      return;
    }
    void manager.resets.otp(r.task.taskId, code).then(
      ({ accepted }) => {
        codeInput.value = "";
        codeError.textContent = accepted ? "" : "The reset no longer waits for a code.";
        if (accepted) status.textContent = "Password reset: code sent, continuing…";
      },
      (e) =>
        (codeError.textContent =
          e instanceof ApiError ? e.message : "Could not send the code (offline?)"),
    );
  });
  cancel.addEventListener("click", () => {
    cancel.disabled = true;
    void manager.resets.cancel(r.task.taskId).then(
      () => undefined,
      (e) => {
        cancel.disabled = false;
        status.textContent =
          e instanceof ApiError ? `Cannot cancel: ${e.message}` : "Cannot cancel while offline.";
      },
    );
  });

  const onChange = (ev: Event) => {
    if ((ev as CustomEvent<LiveReset>).detail === r) render();
  };
  manager.addEventListener("change", onChange);
  render();
  return () => {
    manager.removeEventListener("change", onChange);
    box.remove();
  };
}
