/** The dashboard's lock screen and idle auto-lock (the passphrase change lives in the account settings). */
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
    unlockVault(db, userId, field.value)
      .then(async (keys) => {
        field.value = "";
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

/**
 * Calls `lock` after AUTO_LOCK_MS without a key press, click, touch, scroll or input. Activity only
 * moves a timestamp; the timer re-arms itself for the remaining time, and the check runs again when
 * the tab comes back (timers do not run while a laptop sleeps). The time is also persisted (see
 * passphrase.recordActivity) for the next page load to check.
 */
export function watchIdle(lock: () => void, persist: (at: number) => void): () => void {
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
    const left = last + AUTO_LOCK_MS - Date.now();
    if (left <= 0) lock();
    else timer = setTimeout(check, left);
  };
  let timer = setTimeout(check, AUTO_LOCK_MS);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState !== "visible") return;
    clearTimeout(timer);
    check();
  });
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
