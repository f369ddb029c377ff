import { ApiClient, ApiError, OfflineError } from "../../../core/api";
import {
  askForCode,
  installConfirmDialog,
  reportSignedInAgain,
  SIGNED_IN_AGAIN,
} from "../shell/confirm-dialog";
import { openDb } from "../../../core/store";
import { startEntryReader } from "../../../core/vault";
import { pullAhead, type PullAhead } from "./pull-ahead";
import { warmPullWorker } from "../../../core/sync";
import {
  currentSession,
  providerSession,
  SignInError,
  signIn,
  signOut,
  type SignInAhead,
} from "../../../core/session";
import { noteUnlocked } from "../../../core/ui";
import { $, input, registerServiceWorker } from "./common";
import { openInPlace, readShellPage, type ShellPage } from "./open-in-place";

void registerServiceWorker();

const params = new URLSearchParams(location.search);
/** Where to go after sign-in: the app path the person asked for (same origin only), else the vault. */
function nextPath(): string {
  const next = params.get("next") ?? "";
  return /^\/(?![/\\])[^\s\\]*$/.test(next) && !next.startsWith("/api/") ? next : "/vault";
}

const form = $("signin") as HTMLFormElement;
const error = $("signin-error");
const submit = $("open-vault") as HTMLButtonElement;
($("signin-link") as HTMLAnchorElement).href =
  `/api/auth/login?${new URLSearchParams({ next: nextPath() })}`;
// The callback sends refusals here: the provider's or ours, in words for the person.
if (params.get("error")) error.textContent = `Sign-in failed: ${params.get("error")}`;

/**
 * Every listener of this page's own elements: the vault may open in this document
 * (open-in-place.ts), and from then on nothing of the sign-in form may act or keep what was typed.
 */
const listening = new AbortController();
const { signal } = listening;

/** Who the provider's session names, and whose session the store holds: what the pull ahead needs. */
let signedIn: { user: string; stored: string | undefined } | null = null;
/** The vault's newest entries as the form appeared: the key derivation starts from them at the click (session.ts, deriveAhead). */
let ahead: SignInAhead | undefined;
/** The page the sign-in opens, read as the form appears (open-in-place.ts). */
let shellPage: Promise<ShellPage | null> = Promise.resolve(null);

void (async () => {
  const db = await openDb();
  const local = await currentSession(db).finally(() => db.close());
  const api = new ApiClient();
  let user: Awaited<ReturnType<typeof providerSession>>;
  let codeOwed = false;
  try {
    const session = await api.session();
    user = session.user;
    codeOwed = session.twoFactorRequired === true;
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 401)) {
      // Offline with a vault on this device: it opens from the local store.
      if (e instanceof OfflineError && local) return location.replace(nextPath());
      error.textContent =
        e instanceof OfflineError
          ? "You are offline: signing in needs a connection."
          : `Sign-in failed: ${e instanceof Error ? e.message : String(e)}`;
      return;
    }
    user = null;
  }
  if (!user) return;
  // The small window of a "confirm it's you" sign-in (confirm-dialog.ts): report it, and close.
  if (params.get("next") === SIGNED_IN_AGAIN) {
    $("signin-start").hidden = true;
    error.textContent = "";
    $("signed-in-again").hidden = false;
    return reportSignedInAgain();
  }
  // Account 2FA in force (D20): the code comes right after the provider's sign-in, before the vault.
  installConfirmDialog(api);
  if (codeOwed) {
    $("signin-start").hidden = true;
    while (!(await askForCode(api, "sign-in"))) {
      $("code-owed").hidden = false;
      await new Promise<void>((resolve) =>
        $("enter-code").addEventListener("click", () => resolve(), { once: true, signal }),
      );
      $("code-owed").hidden = true;
    }
  }
  // Already open on this browser for the same user (keys in the local store): straight on.
  if (local?.keys && local.session.userId === user.id) return location.replace(nextPath());
  const newest = await offerNewVault(api);
  signedIn = { user: user.id, stored: local?.session.userId };
  if (newest) ahead = { userId: user.id, newest };
  $("signed-in-as").textContent = user.email ?? user.id;
  $("signin-start").hidden = true;
  form.hidden = false;
  shellPage = readShellPage(nextPath());
  // The pull ahead's request is sent by the pull worker: it starts while the passphrase is typed.
  if (newest?.length) warmPullWorker();
  // The button stays disabled until the handler below is attached: a native submission would
  // send the passphrase in a request.
  submit.disabled = false;
  input("passphrase").focus();
})();

/**
 * Reads the vault's newest entries (what the click's key derivation starts from) and, when there
 * are none, offers a new vault. A vault with no entries yet takes the first passphrase typed as
 * its own, for good: the person chooses it here, typed twice, with its strength shown and what
 * losing it means said plainly.
 */
let newVault = false;
type Checker = Awaited<ReturnType<typeof import("../health/strength").strengthTools>>["checker"];
async function offerNewVault(api: ApiClient) {
  let newest: SignInAhead["newest"] | undefined;
  try {
    newest = (await api.listPasswords(1, 20)).data;
    newVault = newest.length === 0;
  } catch {
    newVault = false;
  }
  if (!newVault) return newest;
  $("new-vault").hidden = false;
  input("passphrase").autocomplete = "new-password";
  submit.textContent = "Create vault";
  const text = $("passphrase-strength-text");
  const box = $("passphrase-strength");
  const meter = box.querySelector("meter")!;
  // Before there is a verdict, the page's own words hold its room (styles.css, #passphrase-strength-text).
  const waiting = text.textContent;
  const show = (checker: Checker, value: string) => {
    // A verdict that arrives after the sign-in left (the vault's page replaced this document's
    // body) has nothing to draw: looking its box up again then failed.
    if (signal.aborted) return;
    const s = value ? checker.check(value) : null;
    meter.value = s?.score ?? 0;
    box.dataset.score = s ? String(s.score) : "";
    text.textContent = s
      ? `${s.label}: ${s.reason}${s.crackTime ? ` (guessed in ${s.crackTime} by an offline attack)` : ""}`
      : waiting;
  };
  // The estimator is loaded as the form appears, not on the first keystroke: once it is here, each
  // verdict is drawn in the keystroke's own task, never later under a pointer already aimed below.
  let checker: Checker | undefined;
  const loading = import("../health/strength")
    .then((m) => m.strengthTools())
    .then((t) => (checker = t.checker))
    .catch(() => undefined);
  let asked = 0;
  input("passphrase").addEventListener(
    "input",
    () => {
      const mine = ++asked;
      const value = input("passphrase").value;
      if (checker) return show(checker, value);
      void loading.then((c) => {
        if (c && mine === asked) show(c, value);
      });
    },
    { signal },
  );
  return newest;
}

$("other-account").addEventListener(
  "click",
  () => {
    void (async () => {
      const db = await openDb();
      await signOut(db).finally(() => db.close());
      location.replace("/");
    })();
  },
  { signal },
);

/** The longest the sign-in waits for the pull ahead's first page before going to the vault without it. */
const FIRST_PAGE_WAIT_MS = 1_500;

/**
 * Leaves the sign-in page's state behind before the vault opens in its document: its listeners
 * removed and what was typed cleared (the form's elements stay reachable from this module). The
 * passphrase itself was never kept past the sign-in's own calls.
 */
function leaveSignIn() {
  listening.abort();
  for (const id of ["passphrase", "passphrase-again"]) input(id).value = "";
}

form.addEventListener(
  "submit",
  (ev) => {
    ev.preventDefault();
    error.textContent = "";
    const passphrase = input("passphrase").value;
    if (passphrase.length < 8) {
      error.textContent = "The master passphrase needs at least 8 characters";
      input("passphrase").focus();
      return;
    }
    if (newVault && input("passphrase-again").value !== passphrase) {
      error.textContent = "The two passphrases differ: type the same one twice";
      input("passphrase-again").focus();
      return;
    }
    submit.disabled = true;
    submit.textContent = "Opening…";
    performance.mark("vault:click");
    // The vault's first pull runs while the passphrase is derived (pull-ahead.ts).
    const early: PullAhead | null =
      signedIn && !newVault ? pullAhead(signedIn.user, signedIn.stored) : null;
    // The vault opens in this document (open-in-place.ts): its entry reader's worker starts now,
    // while the keys are derived, and the vault's first read finds it running.
    if (nextPath() === "/vault") startEntryReader();
    signIn(passphrase, ahead)
      .then(async () => {
        performance.mark("vault:signed-in");
        noteUnlocked();
        // The keys can be ready before the pull's first page (the derivation runs beside the
        // session's and the vault's round trips): leaving now would cut that page, which the vault
        // lists first, and the vault would ask for it again. A pull that hangs is not waited for.
        await Promise.race([
          early?.firstPage,
          new Promise((r) => setTimeout(r, FIRST_PAGE_WAIT_MS)),
        ]);
        // Ended before the vault's first read of the store, as a navigation would have ended it.
        await early?.stop();
        // Still being read (a click as the form appeared) is still sooner than a navigation.
        const page = await shellPage;
        performance.mark("vault:leaving");
        leaveSignIn();
        if (!page) return location.assign(nextPath());
        // A shell that cannot start here (its script failed to load) loads as its own page.
        await openInPlace(page, nextPath()).catch((e: unknown) => {
          console.error(e);
          location.assign(nextPath());
        });
      })
      .catch((e: unknown) => {
        error.textContent =
          e instanceof SignInError
            ? e.message
            : `Sign-in failed: ${e instanceof Error ? e.message : String(e)}`;
        submit.disabled = false;
        submit.textContent = newVault ? "Create vault" : "Open vault";
      });
  },
  { signal },
);
