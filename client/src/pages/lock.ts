/** The dashboard's lock screen and idle auto-lock (the passphrase change lives in the account settings). */
import { ApiClient } from "../../../core/api";
import type { VaultKeys } from "../../../core/crypto";
import type { LocalDb } from "../../../core/store";
import { AUTO_LOCK_MS, PassphraseError, unlockVault } from "../../../core/session";
import { noteUnlocked } from "../../../core/ui";
import { $, input } from "./common";

/**
 * Tabs of the same vault reload when another one locks it or changes its keys: a reload drops the
 * old keys from memory and reads the store again (locked: the lock screen; changed: the new keys).
 */
const channel = typeof BroadcastChannel === "undefined" ? null : new BroadcastChannel("vault-keys");
channel?.addEventListener("message", () => location.reload());

export function announceKeysChanged() {
  channel?.postMessage("changed");
}

/** How stale the stored activity time may get: writing it on every key press would be wasteful. */
const PERSIST_EVERY_MS = 60_000;

const message = (e: unknown) =>
  e instanceof PassphraseError
    ? e.message
    : `Failed: ${e instanceof Error ? e.message : String(e)}`;

export function showLockScreen(
  db: LocalDb,
  userId: string,
  onUnlocked: (keys: VaultKeys) => Promise<void>,
) {
  $("app-main").hidden = true;
  $("app-nav").hidden = true;
  $("lock-screen").hidden = false;
  const form = $("unlock-form") as HTMLFormElement;
  const submit = $("unlock") as HTMLButtonElement;
  const field = input("unlock-passphrase");
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    $("unlock-error").textContent = "";
    submit.disabled = true;
    submit.textContent = "Unlocking…";
    unlockVault(db, userId, field.value, new ApiClient())
      .then(async (keys) => {
        field.value = "";
        markBrowserSession();
        $("lock-screen").hidden = true;
        $("app-main").hidden = false;
        announceKeysChanged();
        noteUnlocked();
        await onUnlocked(keys);
      })
      .catch((e: unknown) => {
        $("unlock-error").textContent = message(e);
        field.select();
      })
      .finally(() => {
        submit.disabled = false;
        submit.textContent = "Unlock";
      });
  });
  submit.disabled = false;
  field.focus();
  document.body.dataset.ready = "locked";
}

/** Sent on this window when Settings changes the auto-lock: the idle watch takes the new limit at once. */
export const LOCK_SETTINGS_EVENT = "vault:lock-settings";

/**
 * A cookie with no expiry lives as long as the browser runs (every tab and window of it): its
 * absence at a page load with the keys in the store says the browser was closed since, for "lock
 * when the browser closes". It holds nothing secret; a browser that restores its session on start
 * keeps it, as it keeps the session's other cookies.
 */
const BROWSER_SESSION_COOKIE = "vault-browser-session";

export function markBrowserSession() {
  const secure = location.protocol === "https:" ? "; Secure" : "";
  document.cookie = `${BROWSER_SESSION_COOKIE}=1; Path=/; SameSite=Strict${secure}`;
}

export function browserClosedSinceUnlock(): boolean {
  return !document.cookie.split("; ").includes(`${BROWSER_SESSION_COOKIE}=1`);
}

/**
 * Calls `lock` after `limitMs()` (Settings' auto-lock, AUTO_LOCK_MS unless changed) without a key
 * press, click, touch, scroll or input. Activity only moves a timestamp; the timer re-arms itself
 * for the remaining time, and the check runs again when the tab comes back (timers do not run
 * while a laptop sleeps) or the limit changes. The time is also persisted (see
 * passphrase.recordActivity) for the next page load to check.
 */
export function watchIdle(
  lock: () => void,
  persist: (at: number) => void,
  limitMs: () => number = () => AUTO_LOCK_MS,
): () => void {
  let last = Date.now();
  let persisted = last;
  let stopped = false;
  const save = (at: number) => {
    // After sign-out the store is empty and must stay so.
    if (!stopped) persist(at);
  };
  save(last);
  const touch = () => {
    last = Date.now();
    if (last - persisted >= PERSIST_EVERY_MS) save((persisted = last));
  };
  addEventListener("pagehide", () => save(last));
  for (const ev of ["keydown", "pointerdown", "wheel", "touchstart", "input"])
    document.addEventListener(ev, touch, { capture: true, passive: true });
  const check = () => {
    if (stopped) return;
    const left = last + limitMs() - Date.now();
    if (left <= 0) lock();
    else timer = setTimeout(check, left);
  };
  let timer = setTimeout(check, limitMs());
  const again = () => {
    clearTimeout(timer);
    check();
  };
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") again();
  });
  addEventListener(LOCK_SETTINGS_EVENT, again);
  return () => {
    stopped = true;
    clearTimeout(timer);
    removeEventListener(LOCK_SETTINGS_EVENT, again);
  };
}
