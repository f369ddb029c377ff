/**
 * "Push notifications on this browser" (docs/decisions/client.md, "Client: entry tools and account pages", "Web Push (web client)"): subscribes this browser's service
 * worker with the server's VAPID key (RFC 8292) and registers the subscription; off unsubscribes
 * and removes it server-side. A refusal (no permission, no push service) changes nothing.
 */
import { PUSH_ID_KEY as ID_KEY, removeThisBrowsersPush } from "../../../core/session";
import type { AppContext } from "../shell/context";
import { el, errorText } from "../../../core/ui";

function keyBytes(b64url: string): Uint8Array<ArrayBuffer> {
  const s = b64url.replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(s + "=".repeat((4 - (s.length % 4)) % 4)), (c) => c.charCodeAt(0));
}

export function pushSwitch(app: AppContext): HTMLElement {
  const box = el("input", { type: "checkbox", id: "push-switch" });
  const message = el("p", { id: "push-message", role: "status" });
  const wrap = el(
    "div",
    { className: "row" },
    el("label", {}, box, " Push notifications on this browser"),
    message,
  );
  const supported =
    "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
  // Off until this browser's state is read: a click before that would be overwritten by the
  // reading, and the switch would show the opposite of what is being done.
  box.disabled = true;
  if (!supported) message.textContent = "This browser cannot receive push notifications.";

  void (async () => {
    if (!supported) return;
    const reg = await navigator.serviceWorker.ready;
    box.checked = !!(await reg.pushManager.getSubscription()) && !!localStorage.getItem(ID_KEY);
    box.disabled = false;
  })().catch(() => (message.textContent = "This browser's push state could not be read."));

  async function turnOn() {
    const { enabled, public_key } = await app.api.pushKey();
    if (!enabled || !public_key)
      throw new Error("Push notifications are not configured on this server.");
    if ((await Notification.requestPermission()) !== "granted")
      throw new Error("Notifications are blocked for this site in the browser.");
    const reg = await navigator.serviceWorker.ready;
    let sub: PushSubscription;
    try {
      sub = await reg.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: keyBytes(public_key),
      });
    } catch {
      throw new Error(
        "This browser refused to subscribe to push notifications (no push service available).",
      );
    }
    try {
      const { keys } = sub.toJSON();
      if (!keys?.p256dh || !keys.auth)
        throw new Error("This browser's push subscription came without its keys.");
      const { subscription } = await app.api.pushSubscribe({
        endpoint: sub.endpoint,
        expirationTime: sub.expirationTime,
        keys: { p256dh: keys.p256dh, auth: keys.auth },
      });
      localStorage.setItem(ID_KEY, subscription.id);
    } catch (err) {
      await sub.unsubscribe().catch(() => undefined);
      throw err;
    }
  }

  const turnOff = () => removeThisBrowsersPush(app.api);

  box.addEventListener("change", () => {
    const on = box.checked;
    box.disabled = true;
    message.textContent = "";
    void (on ? turnOn() : turnOff())
      .then(
        () =>
          (message.textContent = on
            ? "Push notifications are on for this browser."
            : "Push notifications are off for this browser."),
      )
      .catch((err: unknown) => {
        box.checked = !on;
        message.textContent =
          err instanceof Error && !("status" in err) ? err.message : errorText(err);
      })
      .finally(() => (box.disabled = false));
  });
  return wrap;
}
