/**
 * The "Share session" entry tool: a logged-in browser session of this entry's site, shared without
 * revealing the credentials (automated or manual login, access type, duration, viewers, watermark).
 */
import { describeError, labelled } from "../automation/ui";
import { el } from "../pages/common";
import { mountShareCard } from "../session-shares/card";
import { SessionShares } from "../session-shares/shares";
import type { EntryContext } from "../shell/context";

export async function mount(root: HTMLElement, ctx: EntryContext): Promise<() => void> {
  const { app } = ctx;
  const shares = new SessionShares(app.db, app.api, app.session.userId);
  const method = el(
    "select",
    { name: "login-method" },
    el("option", { value: "ai_agent", textContent: "Automated: the vault logs in" }),
    el("option", { value: "manual", textContent: "Manual: I log in in the live view" }),
  );
  const access = el(
    "select",
    { name: "access-type" },
    el("option", { value: "view_only", textContent: "View only" }),
    el("option", { value: "full", textContent: "Full control" }),
  );
  const duration = el("input", {
    type: "number",
    name: "duration",
    min: "1",
    max: "240",
    value: "15",
  });
  const viewers = el("input", { type: "number", name: "viewers", min: "1", max: "10", value: "1" });
  const watermark = el("input", { type: "checkbox", name: "watermark", checked: true });
  const error = el("p", { className: "error", role: "alert" });
  const submit = el("button", { type: "submit", textContent: "Share session" });
  submit.setAttribute("aria-label", `Share a session of ${ctx.entry.name}`);
  const form = el(
    "form",
    { className: "session-share-form", noValidate: true },
    labelled("Login", method),
    labelled("Access", access),
    labelled("Duration (minutes, 1–240)", duration),
    labelled("Viewers (1–10)", viewers),
    el("label", { className: "inline" }, watermark, " Watermark the view"),
    el("div", { className: "row" }, submit),
    error,
  );
  const cards = el("div");
  root.append(form, cards);
  const unmounts: (() => void)[] = [];
  for (const s of (await shares.known()).filter((s) => s.entryId === ctx.id))
    unmounts.push(mountShareCard(cards, shares, s, app.toast));

  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    error.textContent = "";
    const minutes = Number(duration.value);
    const count = Number(viewers.value);
    if (!Number.isInteger(minutes) || minutes < 1 || minutes > 240)
      return void (error.textContent = "The duration is a whole number of minutes from 1 to 240.");
    if (!Number.isInteger(count) || count < 1 || count > 10)
      return void (error.textContent = "Viewers is a whole number from 1 to 10.");
    if (!ctx.fields.username || !ctx.fields.password)
      return void (error.textContent =
        "This entry needs a username and a password to share a logged-in session.");
    submit.disabled = true;
    void shares
      .create(
        {
          id: ctx.id,
          name: ctx.entry.name,
          username: ctx.fields.username,
          password: ctx.fields.password,
        },
        {
          loginMethod: method.value as "ai_agent" | "manual",
          accessType: access.value as "full" | "view_only",
          durationMinutes: minutes,
          maxViewers: count,
          watermarkEnabled: watermark.checked,
        },
      )
      .then(
        (s) => {
          app.toast(`Session of ${ctx.entry.name} shared`);
          unmounts.push(mountShareCard(cards, shares, s, app.toast));
        },
        (e) => (error.textContent = describeError(e, "Sharing the session")),
      )
      .finally(() => (submit.disabled = false));
  });
  return () => unmounts.forEach((u) => u());
}
