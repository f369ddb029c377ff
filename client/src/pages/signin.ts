import { openDb } from "../db";
import { currentSession, SignInError, signIn } from "../session";
import { $, input, registerServiceWorker } from "./common";

void registerServiceWorker();

/** Where to go after sign-in: the app path the person asked for (same origin only), else the vault. */
function nextPath(): string {
  const next = new URLSearchParams(location.search).get("next") ?? "";
  return /^\/(?!\/)[^\\]*$/.test(next) ? next : "/vault";
}

const form = $("signin") as HTMLFormElement;
const error = $("signin-error");

void (async () => {
  // Already signed in on this browser (keys in the local store): straight to the vault.
  const db = await openDb();
  const current = await currentSession(db).finally(() => db.close());
  if (current && document.cookie.includes("access_token=")) location.replace(nextPath());
})();

const submit = form.querySelector("button") as HTMLButtonElement;

form.addEventListener("submit", (ev) => {
  ev.preventDefault();
  error.textContent = "";
  const token = ($("token") as HTMLTextAreaElement).value;
  const passphrase = input("passphrase").value;
  if (passphrase.length < 8) {
    error.textContent = "The master passphrase needs at least 8 characters";
    input("passphrase").focus();
    return;
  }
  submit.disabled = true;
  submit.textContent = "Opening…";
  signIn(token, passphrase)
    .then(() => location.assign(nextPath()))
    .catch((e: unknown) => {
      error.textContent = e instanceof SignInError ? e.message : `Sign-in failed: ${e instanceof Error ? e.message : String(e)}`;
      submit.disabled = false;
      submit.textContent = "Open vault";
    });
});

// The button stays disabled until the handler above is attached: a native submission would send
// the token and the passphrase in a request.
submit.disabled = false;
