/**
 * The form both password-protected exports share (the whole vault, and CXF): a file password
 * typed twice, the server's export rule asked first (a registered device, a recent sign-in; the
 * call is also what puts the export in the activity log), a sync so the file holds what the server
 * holds, then the file made here and downloaded. Each export brings only what differs: its ids and
 * words, and how it builds its file from the password.
 */
import { ApiError } from "../../../core/api";
import { MIN_FILE_PASSWORD } from "../../../core/importers";
import { download, el, errorText } from "../../../core/ui";
import type { AppContext } from "../shell/context";

export const MIN_EXPORT_PASSWORD = MIN_FILE_PASSWORD;

/** What the person reads when the server refuses the export. */
export function refusal(err: unknown): string {
  return err instanceof ApiError && err.status === 403
    ? "Export is refused from an unregistered device: register this browser under Devices"
    : err instanceof ApiError && err.body.code === "STEP_UP_REQUIRED"
      ? "This export needs a recent sign-in: confirm it's you and try again"
      : `Cannot export: ${errorText(err)}`;
}

export type PasswordExport = {
  /** Element ids: `${ids}-form`, `${ids}-password`, `${ids}-password-again`, … */
  ids: {
    form: string;
    password: string;
    again: string;
    button: string;
    status: string;
    error: string;
    heading: string;
  };
  heading: string;
  hint: string;
  label: string;
  button: string;
  /** Builds the file under the password: its name, its text, and the line the status shows. */
  make: (
    password: string,
  ) => Promise<{ name: string; text: string; summary: string; toast?: string }>;
};

export function passwordExportForm(
  app: AppContext,
  isGone: () => boolean,
  spec: PasswordExport,
): HTMLElement {
  const { ids } = spec;
  const pass = el("input", { id: ids.password, type: "password", autocomplete: "new-password" });
  const again = el("input", { id: ids.again, type: "password", autocomplete: "new-password" });
  const btn = el("button", { type: "submit", id: ids.button }, spec.button);
  const status = el("p", { id: ids.status, "aria-live": "polite" });
  const error = el("p", { id: ids.error, className: "error", role: "alert" });
  const form = el(
    "form",
    { id: ids.form, "aria-labelledby": ids.heading },
    el("h3", { id: ids.heading }, spec.heading),
    el("p", { className: "hint" }, spec.hint),
    el("label", { htmlFor: ids.password }, spec.label),
    pass,
    el("label", { htmlFor: ids.again }, `${spec.label} again`),
    again,
    el("div", { className: "row" }, btn),
    status,
    error,
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    error.textContent = status.textContent = "";
    if (pass.value.length < MIN_EXPORT_PASSWORD)
      return void (error.textContent = `Choose a file password of at least ${MIN_EXPORT_PASSWORD} characters`);
    if (pass.value !== again.value) return void (error.textContent = "The two passwords differ");
    btn.disabled = true;
    status.textContent = "Preparing the file…";
    void (async () => {
      await app.api.exportPasswords();
      await app.sync.syncNow();
      const file = await spec.make(pass.value);
      if (isGone()) return;
      download(file.name, file.text, "application/json");
      pass.value = again.value = "";
      status.textContent = file.summary;
      if (file.toast) app.toast(file.toast);
    })()
      .catch((err: unknown) => {
        status.textContent = "";
        error.textContent = refusal(err);
      })
      .finally(() => (btn.disabled = false));
  });
  return form;
}
