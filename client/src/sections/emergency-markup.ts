/** The emergency access section's static markup (text from data is set through textContent). */
export const EMERGENCY_MARKUP = `
<div class="section">
  <h1 tabindex="-1">Emergency access</h1>
  <p class="hint">A trusted contact can ask to read your vault. Unless you deny it within the waiting period, they get read access for 24 hours. Your vault key is wrapped in this browser for their sharing key; the server only relays the wrap.</p>
  <p id="emergency-status" class="muted" role="status"></p>
  <section id="accept-card" class="card" aria-labelledby="accept-heading" hidden>
    <h2 id="accept-heading">Emergency contact invitation</h2>
    <p>Someone named you as their emergency contact. Accept to be able to request access to their vault if they cannot be reached.</p>
    <div class="row"><button type="button" id="accept-invite">Accept invitation</button></div>
    <p id="accept-error" class="error" role="alert"></p>
  </section>
  <section class="card" aria-labelledby="invite-heading">
    <h2 id="invite-heading">Name an emergency contact</h2>
    <form id="invite-form" method="post" action="/emergency" novalidate>
      <label for="invite-email">Contact's email</label>
      <input id="invite-email" type="email" autocomplete="off">
      <label for="invite-wait">Waiting period (hours, 1 to 720)</label>
      <input id="invite-wait" type="number" min="1" max="720" step="1" value="48">
      <label for="invite-passphrase">Your master passphrase</label>
      <input id="invite-passphrase" type="password" autocomplete="current-password">
      <p class="hint">Needed to wrap your vault key for the contact; it never leaves this browser.</p>
      <div class="row"><button type="submit" id="invite-submit">Invite</button></div>
      <p id="invite-error" class="error" role="alert"></p>
    </form>
  </section>
  <section aria-labelledby="owned-heading">
    <h2 id="owned-heading">My emergency contacts</h2>
    <table><thead><tr><th>Contact</th><th>Status</th><th>Waiting period</th><th>Access</th><th>Actions</th></tr></thead>
    <tbody id="contact-rows"></tbody></table>
    <p id="contacts-empty" class="muted" hidden>You have not named anyone.</p>
    <p id="contacts-error" class="error" role="alert"></p>
  </section>
  <section aria-labelledby="named-heading">
    <h2 id="named-heading">Vaults I can ask for</h2>
    <table><thead><tr><th>Owner</th><th>Status</th><th>Waiting period</th><th>Access</th><th>Actions</th></tr></thead>
    <tbody id="owner-rows"></tbody></table>
    <p id="owners-empty" class="muted" hidden>Nobody has named you as their emergency contact.</p>
  </section>
  <section id="owner-vault" class="card" aria-labelledby="owner-vault-heading" hidden>
    <h2 id="owner-vault-heading">Vault</h2>
    <p class="hint">Read-only: decrypted in this browser. The owner is told that you opened it.</p>
    <ul id="owner-entries" class="entries"></ul>
    <p id="owner-entries-empty" class="muted" hidden>This vault has no entries.</p>
    <section id="owner-entry" class="card" aria-labelledby="owner-entry-heading" hidden>
      <h3 id="owner-entry-heading">Entry</h3>
      <dl id="owner-entry-fields"></dl>
      <button type="button" id="hide-owner-entry" class="secondary">Hide</button>
    </section>
    <button type="button" id="close-owner-vault" class="secondary">Close vault</button>
  </section>
</div>`;
