/**
 * /settings: the account's own page (as Bitwarden's "My account"): who is signed in, the master
 * passphrase change, auto-lock, the browser extension, and the way to the other settings pages (security, devices, import and
 * export, contacts' keys). Account matters live here, out of the vault's way.
 */
import { changePassphrase, PassphraseError, clearSyncCache } from "../../../core/session";
import { input, requestBackgroundSync } from "../pages/common";
import { announceKeysChanged } from "../pages/lock";
import type { AppContext } from "../shell/context";
import { el } from "../../../core/ui";
import { AUTO_LOCK_MARKUP, setupAutoLock } from "./settings-lock";
import { EXTENSION_MARKUP, setupExtension } from "./settings-extension";

/** The other settings pages, each with what a person finds there. */
const PAGES: { href: string; title: string; text: string; section: boolean }[] = [
  {
    href: "/security",
    title: "Security",
    text: "Two-step login (an authenticator app) and recovery codes.",
    section: true,
  },
  {
    href: "/devices",
    title: "Devices",
    text: "Browsers signed in to your vault: rename, trust or remove them.",
    section: true,
  },
  {
    href: "/tokens",
    title: "Machine tokens",
    text: "Read-only tokens for CI jobs and AI agents, and the log of what each read.",
    section: true,
  },
  {
    href: "/import-export",
    title: "Import & export",
    text: "Bring entries from another password manager, or export your vault.",
    section: true,
  },
  {
    href: "/keys",
    title: "Contacts' keys",
    text: "Your sharing key's fingerprint, and checking a contact's key before sharing.",
    section: false,
  },
];

const MARKUP = `
<h1>Account</h1>
<p class="muted">Signed in as <strong id="settings-email"></strong></p>
<section class="card" aria-labelledby="cp-heading">
  <h2 id="cp-heading">Change master passphrase</h2>
  <p class="hint">Every entry key is re-wrapped on this device and synced (also later, if offline). Other devices must then sign in again with the new passphrase.</p>
  <form id="passphrase-form" method="post" action="/settings">
    <label for="cp-current">Current master passphrase</label>
    <input id="cp-current" type="password" autocomplete="current-password" required>
    <label for="cp-new">New master passphrase</label>
    <input id="cp-new" type="password" autocomplete="new-password" required minlength="8">
    <label for="cp-confirm">Repeat the new passphrase</label>
    <input id="cp-confirm" type="password" autocomplete="new-password" required>
    <div class="row"><button type="submit" id="cp-submit" disabled>Change passphrase</button></div>
    <p id="cp-error" class="error" role="alert"></p>
  </form>
</section>
${AUTO_LOCK_MARKUP}
${EXTENSION_MARKUP}
<section aria-labelledby="more-settings">
  <h2 id="more-settings">More settings</h2>
  <ul id="settings-pages" class="cards link-cards"></ul>
</section>`;

const message = (e: unknown) =>
  e instanceof PassphraseError
    ? e.message
    : `Failed: ${e instanceof Error ? e.message : String(e)}`;

export function mount(root: HTMLElement, app: AppContext) {
  root.classList.add("section");
  // Static markup only: the email goes in through textContent.
  root.innerHTML = MARKUP;
  root.querySelector("#settings-email")!.textContent = app.session.email ?? app.session.userId;
  root.querySelector("#settings-pages")!.replaceChildren(
    ...PAGES.map((p) => {
      const a = el("a", { href: p.href }, p.title);
      if (p.section)
        a.addEventListener("click", (ev) => {
          if (ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.button !== 0) return;
          ev.preventDefault();
          app.navigate(p.href);
        });
      return el(
        "li",
        {},
        el("p", { className: "name" }, a),
        el("p", { className: "muted" }, p.text),
      );
    }),
  );
  setupChangePassphrase(root, app);
  void setupAutoLock(root, app);
  setupExtension(root);
}

/**
 * The change re-wraps every entry key under the new passphrase's keys (passphrase.ts). Done, the
 * page loads the vault afresh: a load is what drops the old keys from memory.
 */
function setupChangePassphrase(root: HTMLElement, app: AppContext) {
  const form = root.querySelector<HTMLFormElement>("#passphrase-form")!;
  const submit = root.querySelector<HTMLButtonElement>("#cp-submit")!;
  const error = root.querySelector<HTMLElement>("#cp-error")!;
  const fields = ["cp-current", "cp-new", "cp-confirm"].map(input);
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const [current, next, confirm] = fields.map((f) => f.value);
    error.textContent = "";
    if (next !== confirm) {
      error.textContent = "The new passphrase and its repetition differ";
      return;
    }
    form.setAttribute("aria-busy", "true");
    submit.disabled = true;
    void (async () => {
      try {
        // Brings the local copy up to date (online) and stops the schedule while keys change.
        if (navigator.onLine) await app.sync.syncNow();
        app.sync.stop();
        await changePassphrase(app.db, app.session.userId, app.keys, current!, next!, app.api);
        for (const f of fields) f.value = "";
        announceKeysChanged();
        // Cached sync responses hold envelopes under the old key; an offline pull must not bring them back.
        await clearSyncCache();
        await requestBackgroundSync();
        location.assign("/vault");
      } catch (e) {
        error.textContent = message(e);
        app.sync.start();
      } finally {
        form.setAttribute("aria-busy", "false");
        submit.disabled = false;
      }
    })();
  });
  submit.disabled = false;
}
