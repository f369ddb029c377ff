/** The sharing section's static markup (text from data is set through textContent). */
import type { EntrySecrets } from "../../../core/crypto";
import { el } from "../pages/common";

export const SHARING_MARKUP = `
<div class="section">
  <h1 tabindex="-1">Sharing</h1>
  <p id="sharing-status" class="muted" role="status">Setting up sharing…</p>
  <p id="sharing-offline" class="error" hidden></p>
  <section class="card" aria-labelledby="share-heading">
    <h2 id="share-heading">Share an entry</h2>
    <p class="hint">The entry's key is wrapped for the recipient in this browser; the server never sees it.</p>
    <form id="share-form" method="post" action="/sharing" novalidate>
      <label for="share-entry">Entry</label>
      <select id="share-entry"></select>
      <label for="share-email">Recipient's email</label>
      <input id="share-email" type="email" autocomplete="off">
      <label for="share-permission">Permission</label>
      <select id="share-permission"><option value="read">read: can view</option><option value="write">write: can view and edit</option></select>
      <label for="share-expiry">Expires on (optional)</label>
      <input id="share-expiry" type="date">
      <div class="row"><button type="submit" id="share-submit" disabled>Share</button></div>
      <p id="share-error" class="error" role="alert"></p>
    </form>
  </section>
  <section aria-labelledby="owned-heading">
    <h2 id="owned-heading">Shared by me</h2>
    <table><thead><tr><th>Entry</th><th>Recipient</th><th>Status</th><th>Permission</th><th>Expires</th><th>Actions</th></tr></thead>
    <tbody id="owned-rows"></tbody></table>
    <p id="owned-empty" class="muted">You have not shared any entry.</p>
    <section id="view-log" class="card" aria-labelledby="log-heading" hidden>
      <h3 id="log-heading">View log</h3>
      <ul id="log-rows"></ul>
      <p id="log-empty" class="muted">Not viewed yet.</p>
      <button type="button" id="hide-log" class="secondary">Close</button>
    </section>
  </section>
  <section aria-labelledby="received-heading">
    <h2 id="received-heading">Shared with me</h2>
    <table><thead><tr><th>Entry</th><th>Website</th><th>Status</th><th>Permission</th><th>Expires</th><th>Actions</th></tr></thead>
    <tbody id="received-rows"></tbody></table>
    <p id="received-empty" class="muted">Nothing has been shared with you.</p>
    <section id="shared-entry" class="card" aria-labelledby="shared-heading" hidden>
      <h3 id="shared-heading">Shared entry</h3>
      <dl id="shared-fields" class="fields"></dl>
      <form id="shared-edit" method="post" action="/sharing" hidden>
        <label for="se-username">Username</label>
        <input id="se-username" autocomplete="off">
        <label for="se-password">Password</label>
        <input id="se-password" type="password" autocomplete="new-password">
        <label for="se-notes">Notes</label>
        <textarea id="se-notes" rows="3"></textarea>
        <div class="row"><button type="submit">Save changes</button></div>
        <p id="se-error" class="error" role="alert"></p>
      </form>
      <button type="button" id="hide-shared" class="secondary">Close</button>
    </section>
  </section>
</div>`;

const MASK = "••••••••••";

/**
 * A received share's fields as the person's own entries show theirs (the vault's detail): the
 * password masked until Show, each field with its own Copy; `logged` tells the owner's view log.
 */
export function sharedFields(
  secrets: Pick<EntrySecrets, "username" | "password" | "notes">,
  logged: (action: "password_viewed" | "password_copied") => void,
  toast: (message: string) => void,
): HTMLElement[] {
  const copy = (label: string, value: string, after?: () => void) =>
    el("button", {
      type: "button",
      className: "secondary",
      textContent: "Copy",
      ariaLabel: `Copy ${label.toLowerCase()}`,
      onclick: () =>
        void navigator.clipboard.writeText(value).then(
          () => {
            toast(`${label} copied`);
            after?.();
          },
          (e: unknown) => toast(`Cannot copy: ${e instanceof Error ? e.message : String(e)}`),
        ),
    });
  const row = (label: string, field: string, value: string, secret: boolean) => {
    const dd = el("dd", {
      className: "value",
      textContent: value ? (secret ? MASK : value) : "—",
      dataset: { field },
    });
    const actions = el("dd", { className: "field-actions" });
    if (value && secret) {
      const show = el("button", {
        type: "button",
        className: "secondary show",
        textContent: "Show",
        ariaLabel: `Show ${label.toLowerCase()}`,
      });
      show.setAttribute("aria-pressed", "false");
      show.onclick = () => {
        const shown = show.getAttribute("aria-pressed") !== "true";
        dd.textContent = shown ? value : MASK;
        show.textContent = shown ? "Hide" : "Show";
        show.ariaLabel = `${shown ? "Hide" : "Show"} ${label.toLowerCase()}`;
        show.setAttribute("aria-pressed", String(shown));
        if (shown) logged("password_viewed");
      };
      actions.append(show);
    }
    if (value)
      actions.append(copy(label, value, secret ? () => logged("password_copied") : undefined));
    return [el("dt", { textContent: label }), dd, actions];
  };
  return [
    ...row("Username", "username", secrets.username, false),
    ...row("Password", "password", secrets.password, true),
    ...row("Notes", "notes", secrets.notes, false),
  ];
}
