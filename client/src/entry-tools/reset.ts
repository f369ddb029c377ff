/**
 * The "Reset password" entry tool: starts an automated reset of this entry's site with one of the
 * connected mailboxes, then shows it live. The task itself is followed by the reset manager, so it
 * goes on (and its password is saved here) when this view closes.
 */
import { ApiError, OfflineError } from "../../../core/api";
import { el } from "../pages/common";
import { activeMailboxes } from "../reset/mailboxes";
import { resetManager } from "../reset/manager";
import { mountResetView } from "../reset/view";
import type { EntryContext } from "../shell/context";

/** The address the reset starts from: the entry's URL, else its website. */
export function serviceUrlOf(entry: { url: string | null; website: string | null }): string | null {
  const raw = entry.url || entry.website;
  if (!raw) return null;
  try {
    const u = new URL(/^https?:\/\//i.test(raw) ? raw : `https://${raw}`);
    return u.protocol === "https:" || u.protocol === "http:" ? u.toString() : null;
  } catch {
    return null;
  }
}

export async function mount(root: HTMLElement, ctx: EntryContext): Promise<() => void> {
  const { app } = ctx;
  const manager = resetManager(app);
  const message = el("p", { className: "error", role: "alert" });
  const select = el("select", { name: "mailbox" });
  // Enabled once the mailboxes are listed: a reset needs one of them.
  const start = el("button", { type: "button", textContent: "Reset password", disabled: true });
  start.setAttribute("aria-label", `Reset password of ${ctx.entry.name}`);
  const form = el(
    "div",
    { className: "reset-start" },
    el("label", {}, "Mailbox that receives the reset email", select),
    el("div", { className: "row" }, start),
    message,
  );
  const live = el("div");
  root.append(form, live);
  let unmountView: (() => void) | null = null;
  const show = (r: ReturnType<typeof manager.forEntry>) => {
    unmountView?.();
    unmountView = r ? mountResetView(live, manager, r) : null;
  };
  show(manager.forEntry(ctx.id));

  const url = serviceUrlOf(ctx.entry);
  if (!url) {
    message.textContent =
      "Add the site's address (website or URL) to this entry to reset its password.";
  }
  try {
    const boxes = await activeMailboxes(app.api);
    select.replaceChildren(
      ...boxes.map((b) =>
        el("option", { value: b.email, textContent: `${b.email} (${b.provider})` }),
      ),
    );
    // The entry's own username first when it is one of the mailboxes: that is the account's address.
    const own = boxes.find(
      (b) => b.email.toLowerCase() === ctx.fields.username.trim().toLowerCase(),
    );
    if (own) select.value = own.email;
    start.disabled = !url || boxes.length === 0;
    if (boxes.length === 0) {
      message.replaceChildren(
        "Connect the mailbox this account uses before resetting its password: ",
        el("a", { href: "/mailboxes", textContent: "Mailboxes" }),
      );
      message.querySelector("a")?.addEventListener("click", (ev) => {
        ev.preventDefault();
        app.navigate("/mailboxes");
      });
    }
  } catch (e) {
    message.textContent =
      e instanceof OfflineError
        ? "Resetting a password needs a connection."
        : `Cannot list mailboxes: ${e instanceof Error ? e.message : String(e)}`;
  }

  start.addEventListener("click", () => {
    if (!url || !select.value) return;
    start.disabled = true;
    message.textContent = "";
    void manager.start({ entryId: ctx.id, serviceUrl: url, email: select.value }).then(
      (r) => {
        start.disabled = false;
        show(r);
      },
      (e) => {
        start.disabled = false;
        message.textContent = describeStartError(e);
      },
    );
  });
  return () => unmountView?.();
}

/** What the person can do about a refused start. */
export function describeStartError(e: unknown): string {
  if (e instanceof OfflineError) return "Resetting a password needs a connection.";
  if (!(e instanceof ApiError))
    return `Could not start the reset: ${e instanceof Error ? e.message : String(e)}`;
  if (e.body.code === "STEP_UP_REQUIRED")
    return "For a password reset, sign in again first (your last sign-in is too old).";
  if (e.status === 403)
    return `Password resets can only be started from a registered device: ${e.message}`;
  if (e.status === 429) return "Too many resets started recently; try again in a few minutes.";
  const detail = e.body.details?.map((d) => `${d.field}: ${d.message}`).join("; ");
  return `Could not start the reset: ${e.message}${detail ? ` (${detail})` : ""}`;
}
