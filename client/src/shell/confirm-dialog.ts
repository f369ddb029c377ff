/**
 * "Confirm it's you": the one place the web app answers the server's requests for more proof of
 * the person (docs/decisions/auth.md, "Sign-in: account 2FA in force, "confirm it's you", invitations found in the app").
 *
 * - TWO_FACTOR_REQUIRED (DECISIONS D20): this sign-in owes its account 2FA code. A dialog asks for
 *   it (or a recovery code) and POST /api/2fa/verify takes it.
 * - STEP_UP_REQUIRED (D3): the sign-in is too old for the action. With 2FA on, a code counts as a
 *   fresh sign-in (D20), so the same dialog asks for one. Without 2FA the person signs in again at
 *   the provider (prompt=login, max_age=0) in a small window; the page underneath stays as it was,
 *   typed values and all, and learns of the new sign-in on a BroadcastChannel.
 *
 * Either way the refused call is then made again (core/api/api.ts), so the action finishes.
 */
import { ApiClient, ApiError, OfflineError, setChallengeHandler } from "../../../core/api";
import { CODE_USED_SENTENCE, el, errorText } from "../../../core/ui";

/** The server's word that the code was right but its time step was used already. */
const usedAlready = (e: ApiError) =>
  e.status === 401 &&
  (e.body.details ?? []).some((d) => d.field === "code" && d.message === "already_used");

/** The path the provider's sign-in window comes back to (the sign-in page answers it and closes). */
export const SIGNED_IN_AGAIN = "/signed-in-again";
const CHANNEL = "vault-sign-in";

/** A dialog with a heading, a lead text and the given content; removed from the page when closed. The app's one modal look. */
export function dialog(
  title: string,
  lead: string,
): { box: HTMLDialogElement; body: HTMLElement; close: () => void } {
  const heading = el("h2", { id: `confirm-title-${Date.now()}` }, title);
  const body = el("div", {});
  const box = el(
    "dialog",
    { className: "confirm-dialog", "aria-labelledby": heading.id },
    heading,
    el("p", {}, lead),
    body,
  );
  document.body.append(box);
  box.showModal();
  return { box, body, close: () => (box.open && box.close(), box.remove()) };
}

/**
 * Asks for an account 2FA code (or a recovery code) until one is accepted or the person cancels.
 * True when the server accepted one for this sign-in.
 */
export function askForCode(api: ApiClient, purpose: "sign-in" | "confirm"): Promise<boolean> {
  const lead =
    purpose === "sign-in"
      ? "Two-factor authentication is on for this account. Enter the 6-digit code from your authenticator app."
      : "This needs a recent sign-in. Enter the 6-digit code from your authenticator app to confirm it's you; then it goes on.";
  const { box, body, close } = dialog(
    purpose === "sign-in" ? "Two-factor code" : "Confirm it's you",
    lead,
  );
  return new Promise((resolve) => {
    let recovery = false;
    const label = el("label", { htmlFor: "confirm-code" }, "Authenticator code");
    const code = el("input", {
      id: "confirm-code",
      name: "code",
      autocomplete: "one-time-code",
      inputMode: "numeric",
      required: true,
      maxLength: 64,
    });
    const error = el("p", { className: "error", role: "alert", id: "confirm-error" });
    const submit = el("button", { type: "submit" }, purpose === "sign-in" ? "Verify" : "Confirm");
    const cancel = el("button", { type: "button", className: "secondary" }, "Cancel");
    const toggle = el(
      "button",
      { type: "button", className: "linklike", id: "use-recovery-code" },
      "Use a recovery code",
    );
    toggle.addEventListener("click", () => {
      recovery = !recovery;
      label.textContent = recovery ? "Recovery code" : "Authenticator code";
      code.inputMode = recovery ? "text" : "numeric";
      code.autocomplete = recovery ? "off" : "one-time-code";
      toggle.textContent = recovery ? "Use the authenticator code" : "Use a recovery code";
      code.value = "";
      code.focus();
    });
    const form = el(
      "form",
      { method: "dialog" },
      label,
      code,
      el(
        "p",
        { className: "hint" },
        "A recovery code works once; you saved ten when you turned 2FA on.",
      ),
      toggle,
      error,
      el("div", { className: "actions" }, submit, cancel),
    );
    body.append(form);
    const finish = (ok: boolean) => {
      close();
      resolve(ok);
    };
    cancel.addEventListener("click", () => finish(false));
    box.addEventListener("cancel", (ev) => {
      ev.preventDefault();
      finish(false);
    });
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const value = code.value.trim();
      if (!value) return;
      error.textContent = "";
      submit.disabled = true;
      api
        .twoFactorVerify(value)
        .then(() => finish(true))
        .catch((e: unknown) => {
          submit.disabled = false;
          code.select();
          if (e instanceof ApiError && e.status === 429)
            error.textContent = "Too many wrong codes: wait a few minutes, then try again.";
          else if (e instanceof ApiError && !recovery && usedAlready(e)) {
            // Right, but its 30-second step was taken (a sign-in moments ago): not "wrong".
            error.textContent = `${CODE_USED_SENTENCE}, or use a recovery code.`;
            toggle.classList.add("offered");
          } else if (e instanceof ApiError && e.status === 401)
            error.textContent = recovery
              ? "That recovery code is not valid or was used already."
              : "That code is not right (or was used already): wait for the next one.";
          else if (e instanceof OfflineError)
            error.textContent =
              "You are offline: the code can be checked once you are back online.";
          else error.textContent = errorText(e);
        });
    });
    code.focus();
  });
}

/**
 * A fresh sign-in at the provider in a small window, for an account without 2FA: the page keeps
 * everything typed, and the refused call is made again once the window reports the new sign-in.
 */
export function signInAgain(): Promise<boolean> {
  const { box, body, close } = dialog(
    "Confirm it's you",
    "This needs a recent sign-in. Sign in again at your identity provider in the window that opens; this page stays as it is and your action goes on afterwards.",
  );
  return new Promise((resolve) => {
    const channel = new BroadcastChannel(CHANNEL);
    const status = el("p", { className: "hint", role: "status", id: "confirm-status" });
    const go = el("button", { type: "button", id: "confirm-sign-in" }, "Sign in again");
    const cancel = el("button", { type: "button", className: "secondary" }, "Cancel");
    body.append(status, el("div", { className: "actions" }, go, cancel));
    const finish = (ok: boolean) => {
      channel.close();
      close();
      resolve(ok);
    };
    channel.onmessage = (ev: MessageEvent) => {
      if ((ev.data as { type?: string } | null)?.type === "signed-in") finish(true);
    };
    go.addEventListener("click", () => {
      const url = `/api/auth/login?${new URLSearchParams({ next: SIGNED_IN_AGAIN })}`;
      const win = window.open(url, "vault-confirm", "popup,width=520,height=700");
      status.textContent = win
        ? "Waiting for the sign-in in the other window…"
        : "The window was blocked: allow pop-ups for this site, then press Sign in again.";
    });
    cancel.addEventListener("click", () => finish(false));
    box.addEventListener("cancel", (ev) => {
      ev.preventDefault();
      finish(false);
    });
    go.focus();
  });
}

/** Called by the sign-in page when it is the provider window coming back: tell the opener, close. */
export function reportSignedInAgain(): void {
  const channel = new BroadcastChannel(CHANNEL);
  channel.postMessage({ type: "signed-in" });
  channel.close();
  window.close();
}

/**
 * Installs the dialog as the app's answer to TWO_FACTOR_REQUIRED and STEP_UP_REQUIRED. Refusals
 * that arrive while a dialog is open wait for it instead of opening another.
 */
export function installConfirmDialog(api: ApiClient = new ApiClient()): void {
  let open: Promise<boolean> | null = null;
  setChallengeHandler((err) => {
    open ??= (async () => {
      if (err.body.code === "TWO_FACTOR_REQUIRED") return askForCode(api, "sign-in");
      const status = await api.twoFactorStatus().catch(() => null);
      return status?.enrolled ? askForCode(api, "confirm") : signInAgain();
    })().finally(() => {
      open = null;
    });
    return open;
  });
}
