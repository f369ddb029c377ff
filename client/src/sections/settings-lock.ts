/**
 * Settings' auto-lock (as Bitwarden's "vault timeout"): how long this device's vault stays open
 * without activity, and whether it locks when the browser closes. A device's own choice, kept in
 * its store; the open page's idle watch takes a change at once (lock.ts `watchIdle`).
 */
import {
  IDLE_CHOICES,
  lockSettings,
  setLockSettings,
  type LockSettings,
} from "../../../core/session";
import { el } from "../../../core/ui";
import { LOCK_SETTINGS_EVENT } from "../pages/lock";
import type { AppContext } from "../shell/context";

export const AUTO_LOCK_MARKUP = `
<section class="card" aria-labelledby="autolock-heading">
  <h2 id="autolock-heading">Auto-lock</h2>
  <p class="hint">On this device: locked, the vault needs the master passphrase again; nothing of it is readable in the meantime.</p>
  <label for="lock-idle">Lock after this long without activity</label>
  <select id="lock-idle"></select>
  <label class="inline"><input type="checkbox" id="lock-on-close"> Also lock when the browser closes</label>
  <p id="lock-saved" class="hint" role="status"></p>
</section>`;

const phrase = (m: number) =>
  m < 60 ? `${m} minute${m === 1 ? "" : "s"}` : `${m / 60} hour${m === 60 ? "" : "s"}`;

export async function setupAutoLock(root: HTMLElement, app: AppContext) {
  const idle = root.querySelector<HTMLSelectElement>("#lock-idle")!;
  const onClose = root.querySelector<HTMLInputElement>("#lock-on-close")!;
  const saved = root.querySelector<HTMLElement>("#lock-saved")!;
  idle.replaceChildren(
    ...IDLE_CHOICES.map((m) => el("option", { value: String(m), textContent: phrase(m) })),
  );
  const current = await lockSettings(app.db, app.session.userId);
  idle.value = String(current.idleMinutes);
  onClose.checked = current.onBrowserClose;
  const save = async () => {
    const next: LockSettings = { idleMinutes: Number(idle.value), onBrowserClose: onClose.checked };
    try {
      await setLockSettings(app.db, app.session.userId, next);
      dispatchEvent(new CustomEvent(LOCK_SETTINGS_EVENT, { detail: next }));
      saved.textContent = `Saved: this device locks after ${phrase(next.idleMinutes)} without activity${next.onBrowserClose ? " and when the browser closes" : ""}.`;
    } catch (e) {
      saved.textContent = `Not saved: ${e instanceof Error ? e.message : String(e)}`;
    }
  };
  idle.addEventListener("change", () => void save());
  onClose.addEventListener("change", () => void save());
}
