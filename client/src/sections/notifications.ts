/**
 * /notifications: the notification centre. Unread count, mark one or all read, clear all (the
 * spec offers no single deletion). New notifications appear without a reload: the list is polled
 * while the tab is visible, and at once when the service worker reports a push.
 */
import type { AppNotification, NotificationList } from "../../../core/api";
import type { AppContext } from "../shell/context";
import { el, errorText, formatTime } from "../../../core/ui";
import { pushSwitch } from "./push-switch";

export const POLL_MS = 15_000;

/**
 * The action's words where a notification waits for the person's answer (an invitation, a share):
 * the button says what they will do there. Anything else just opens its page.
 */
const ACTION_LABEL: Record<string, string> = {
  emergency_contact_invited: "Review and accept",
  share_received: "Review and accept",
};

export function mount(root: HTMLElement, app: AppContext): () => void {
  let gone = false;
  const count = el("p", { id: "unread-count", "aria-live": "polite" });
  const list = el("ul", { id: "notifications", className: "cards", "aria-label": "Notifications" });
  const error = el("p", { id: "notifications-error", className: "error", role: "alert" });
  const readAll = el("button", { type: "button", className: "secondary" }, "Mark all read");
  const clear = el("button", { type: "button", className: "danger" }, "Clear all");
  root.classList.add("section");
  root.replaceChildren(
    el("h1", {}, "Notifications"),
    pushSwitch(app),
    count,
    el("div", { className: "row" }, readAll, clear),
    error,
    list,
  );

  function item(n: AppNotification): HTMLLIElement {
    const li = el(
      "li",
      { "data-id": n.id, "data-read": String(n.is_read), className: n.is_read ? "read" : "unread" },
      el("p", { className: "name" }, n.title),
      el("p", {}, n.body),
      el(
        "p",
        { className: "muted" },
        `${formatTime(n.created_at)}${n.actor_email ? ` · ${n.actor_email}` : ""}`,
      ),
    );
    const actions = el("div", { className: "row" });
    if (n.action_url?.startsWith("/")) {
      const label = ACTION_LABEL[n.type];
      const open = el(
        "button",
        { type: "button", className: label ? "" : "secondary" },
        label ?? "Open",
      );
      if (label) open.setAttribute("aria-label", `${label}: ${n.title}`);
      open.addEventListener("click", () => {
        if (!n.is_read) void app.api.markNotificationRead(n.id).catch(() => undefined);
        app.navigate(n.action_url!);
      });
      actions.append(open);
    }
    if (!n.is_read) {
      const mark = el(
        "button",
        // The visible words first, then which one (WCAG 2.5.3, as the action's label above).
        { type: "button", className: "secondary", "aria-label": `Mark read: ${n.title}` },
        "Mark read",
      );
      mark.addEventListener("click", () => void act(app.api.markNotificationRead(n.id)));
      actions.append(mark);
    }
    li.append(actions);
    return li;
  }

  function show(data: NotificationList) {
    count.textContent =
      data.unread_count === 0 ? "No unread notifications" : `${data.unread_count} unread`;
    count.dataset.count = String(data.unread_count);
    list.replaceChildren(...data.notifications.map(item));
    if (data.notifications.length === 0)
      list.replaceChildren(el("li", { className: "muted" }, "Nothing here."));
    readAll.disabled = data.unread_count === 0;
    clear.disabled = data.notifications.length === 0;
  }

  async function refresh() {
    const data = await app.api.notifications(100);
    if (!gone) show(data);
  }

  function act(p: Promise<unknown>) {
    error.textContent = "";
    return p.then(refresh).catch((err: unknown) => (error.textContent = errorText(err)));
  }

  readAll.addEventListener("click", () => void act(app.api.markAllNotificationsRead()));
  clear.addEventListener("click", () => {
    if (confirm("Delete all notifications, read and unread? This cannot be undone."))
      void act(app.api.clearNotifications());
  });

  const poll = setInterval(() => {
    if (document.visibilityState === "visible") void refresh().catch(() => undefined);
  }, POLL_MS);
  const onMessage = (ev: MessageEvent<{ type?: string }>) => {
    if (ev.data?.type === "PUSH_RECEIVED") void refresh().catch(() => undefined);
  };
  navigator.serviceWorker?.addEventListener("message", onMessage);
  const onVisible = () =>
    document.visibilityState === "visible" && void refresh().catch(() => undefined);
  document.addEventListener("visibilitychange", onVisible);

  void refresh().catch(
    (err: unknown) => (error.textContent = `Cannot load notifications: ${errorText(err)}`),
  );
  return () => {
    gone = true;
    clearInterval(poll);
    navigator.serviceWorker?.removeEventListener("message", onMessage);
    document.removeEventListener("visibilitychange", onVisible);
  };
}
