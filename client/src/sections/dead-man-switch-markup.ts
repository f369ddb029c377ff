/** The dead man's switch section's static markup (text from data is set through textContent). */
export const DMS_MARKUP = `
<div class="section">
  <h1 tabindex="-1">Dead man's switch</h1>
  <p class="hint">If you do not check in or sign in for the number of days you choose, the people you name receive your vault key, wrapped in this browser for their sharing key. The server only holds the wraps.</p>
  <section class="card" aria-labelledby="dms-state-heading">
    <h2 id="dms-state-heading">Status</h2>
    <p id="dms-status" role="status">Loading…</p>
    <p id="dms-days" class="muted"></p>
    <div class="row"><button type="button" id="dms-check-in" hidden>Check in</button></div>
    <p id="dms-error" class="error" role="alert"></p>
  </section>
  <section class="card" aria-labelledby="dms-settings-heading">
    <h2 id="dms-settings-heading">Settings</h2>
    <form id="dms-form" method="post" action="/dead-man-switch" novalidate>
      <label><input id="dms-enabled" type="checkbox" checked> Switch on</label>
      <label for="dms-days-input">Days of inactivity before it triggers (7 to 365)</label>
      <input id="dms-days-input" type="number" min="7" max="365" step="1" value="30">
      <label for="dms-notify-days">Remind me this many days before (comma-separated)</label>
      <input id="dms-notify-days" value="7, 3, 1" autocomplete="off">
      <fieldset><legend>Remind me by</legend>
        <label><input id="dms-via-email" type="checkbox" checked> Email</label>
        <label><input id="dms-via-push" type="checkbox" checked> In-app notification</label>
      </fieldset>
      <label><input id="dms-confirm" type="checkbox"> Hold the transfer 48 hours after it triggers, in case I check in</label>
      <label for="dms-phrase">Secret phrase recipients must give (optional; empty keeps the current one)</label>
      <input id="dms-phrase" type="password" autocomplete="off">
      <div class="row"><button type="submit" id="dms-save">Save</button><button type="button" id="dms-delete" class="danger" hidden>Delete switch</button></div>
      <p id="dms-form-error" class="error" role="alert"></p>
    </form>
  </section>
  <section class="card" aria-labelledby="dms-recipients-heading">
    <h2 id="dms-recipients-heading">Recipients</h2>
    <table><thead><tr><th>Email</th><th>Name</th><th>Status</th><th>Actions</th></tr></thead>
    <tbody id="dms-recipient-rows"></tbody></table>
    <p id="dms-recipients-empty" class="muted" hidden>Nobody is named yet.</p>
    <form id="dms-recipient-form" method="post" action="/dead-man-switch" novalidate>
      <label for="dms-r-email">Recipient's email</label>
      <input id="dms-r-email" type="email" autocomplete="off">
      <label for="dms-r-name">Their name (optional)</label>
      <input id="dms-r-name" autocomplete="off">
      <label for="dms-r-passphrase">Your master passphrase</label>
      <input id="dms-r-passphrase" type="password" autocomplete="current-password">
      <p class="hint">Needed to wrap your vault key for them; it never leaves this browser.</p>
      <div class="row"><button type="submit" id="dms-r-submit">Add recipient</button></div>
      <p id="dms-r-error" class="error" role="alert"></p>
    </form>
  </section>
  <section aria-labelledby="dms-log-heading">
    <h2 id="dms-log-heading">Recent activity</h2>
    <ul id="dms-log"></ul>
  </section>
  <section aria-labelledby="dms-transfers-heading">
    <h2 id="dms-transfers-heading">Released to me</h2>
    <table><thead><tr><th>From</th><th>Status</th><th>Released</th><th>Actions</th></tr></thead>
    <tbody id="dms-transfer-rows"></tbody></table>
    <p id="dms-transfers-empty" class="muted" hidden>No one's switch has released anything to you.</p>
    <p id="dms-transfer-result" role="status"></p>
  </section>
</div>`;
