/** The vault section's static markup (no user data: text is set through textContent). */
export const VAULT_MARKUP = `
<div id="vault-view" class="columns" hidden>
  <section aria-labelledby="entries-heading">
    <h1 id="vault-title" class="section-title" tabindex="-1">Vault</h1>
    <h2 id="entries-heading">Entries</h2>
    <label for="search">Search</label>
    <input id="search" type="search" autocomplete="off" aria-describedby="search-help">
    <p id="search-help" class="hint">Matches whole words and word beginnings of name, website and username, through blind indexes.</p>
    <p id="foreign-key" class="error" aria-live="polite" hidden></p>
    <ul id="entries" aria-label="Vault entries"></ul>
    <p id="empty" class="muted" hidden>No entries.</p>
    <section id="revealed" aria-labelledby="revealed-heading" hidden>
      <h3 id="revealed-heading">Entry</h3>
      <dl id="revealed-fields"></dl>
      <div id="entry-tools"></div>
      <button type="button" id="hide-revealed">Hide</button>
    </section>
  </section>
  <div>
  <section aria-labelledby="form-heading">
    <h2 id="form-heading">Add an entry</h2>
    <form id="entry-form" method="post" action="/vault">
      <input type="hidden" id="entry-id" name="id">
      <label for="f-name">Name</label>
      <input id="f-name" name="name" required maxlength="500">
      <label for="f-website">Website</label>
      <input id="f-website" name="website" placeholder="example.com" maxlength="2048">
      <label for="f-url">URL</label>
      <input id="f-url" name="url" type="url" placeholder="https://example.com/login" maxlength="2048">
      <label for="f-username">Username</label>
      <input id="f-username" name="username" autocomplete="off">
      <label for="f-password">Password</label>
      <input id="f-password" name="password" type="password" autocomplete="new-password">
      <label for="f-notes">Notes</label>
      <textarea id="f-notes" name="notes" rows="3"></textarea>
      <label for="f-category">Category</label>
      <input id="f-category" name="category">
      <label for="f-totp">TOTP secret</label>
      <input id="f-totp" name="totp" autocomplete="off">
      <label for="f-tags">Tags (comma-separated)</label>
      <input id="f-tags" name="tags">
      <div class="row">
        <button type="submit" id="save" disabled>Save</button>
        <button type="button" id="cancel-edit" hidden>Cancel</button>
      </div>
      <p id="form-error" class="error" role="alert"></p>
    </form>
  </section>
  </div>
</div>`;
