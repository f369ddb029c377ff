/** The vault section's static markup (no user data: text is set through textContent). */
export const VAULT_MARKUP = `
<div id="vault-view" class="vault" hidden>
  <h1 id="vault-title" class="section-title" tabindex="-1">Vault</h1>
  <nav id="vault-places" class="vault-places" aria-label="Vaults" hidden></nav>
  <div id="vault-panes" class="vault-panes" data-view="list">
    <section id="list-pane" class="list-pane" aria-labelledby="entries-heading">
      <div class="vault-toolbar">
        <div class="search-box">
          <label for="search">Search</label>
          <input id="search" type="search" autocomplete="off" aria-describedby="search-help" aria-keyshortcuts="/" aria-controls="entries">
        </div>
        <button type="button" id="new-entry">New entry</button>
        <button type="button" id="filters-toggle" class="secondary" aria-expanded="false" aria-controls="vault-filters">Filters</button>
        <button type="button" id="keys-help-toggle" class="secondary" aria-expanded="false" aria-controls="search-help" aria-label="Keyboard help" aria-keyshortcuts="?" title="Keyboard help (?)">?</button>
      </div>
      <div id="vault-filters" class="vault-filters">
        <span class="filter"><label for="sort">Sort by</label><select id="sort"><option value="name">Name</option><option value="favourites">Favourites first</option><option value="used">Last used</option><option value="changed">Last changed</option></select></span>
        <span class="filter"><label for="tag-filter">Tag</label><select id="tag-filter"><option value="">All tags</option></select></span>
        <span class="filter"><label for="kind-filter">Kind</label><select id="kind-filter"><option value="">All kinds</option><option value="login">Logins</option><option value="note">Secure notes</option><option value="card">Cards</option><option value="identity">Identities</option><option value="ssh_key">SSH keys</option><option value="passkey">With passkeys</option><option value="shared">Shared with me</option></select></span>
        <span class="filter"><label for="folder-filter">Folder</label><select id="folder-filter"></select></span>
        <button type="button" id="new-folder" class="secondary">New folder</button>
        <button type="button" id="favourites-only" class="secondary" aria-pressed="false"><span aria-hidden="true">★</span> Favourites</button>
        <button type="button" id="trash-toggle" class="secondary" aria-pressed="false" aria-controls="trash-view">Trash <span id="trash-count" class="count" aria-hidden="true"></span></button>
        <span id="folder-actions" class="row" hidden>
          <button type="button" id="rename-folder" class="secondary">Rename folder</button>
          <button type="button" id="delete-folder" class="danger">Delete folder</button>
        </span>
      </div>
      <p id="search-help" class="hint" hidden>Matches whole words and word beginnings of name, website and username. Keys: <kbd>/</kbd> search, <kbd>↑</kbd> <kbd>↓</kbd> move, <kbd>Enter</kbd> open; on an open entry <kbd>c</kbd> copies the password, <kbd>u</kbd> the username, <kbd>o</kbd> the one-time code, <kbd>Esc</kbd> goes back to the list.</p>
      <h2 id="entries-heading">Entries</h2>
      <p id="foreign-key" class="error" aria-live="polite" hidden></p>
      <ul id="entries" class="entry-list" aria-label="Vault entries"></ul>
      <div id="empty" class="empty-state" hidden>
        <p class="empty-title">Your vault is empty.</p>
        <p>Coming from another password manager? <a href="/import-export">Import your passwords</a> first: Bitwarden, 1Password, LastPass, Dashlane and browser exports are read on this device.</p>
        <p><button type="button" id="empty-new" class="secondary">Add your first entry</button></p>
      </div>
      <p id="no-match" class="empty-state" hidden></p>
      <section id="trash-view" class="trash-view" aria-labelledby="trash-heading" hidden>
        <h2 id="trash-heading" tabindex="-1">Trash</h2>
        <p id="trash-hint" class="hint"></p>
        <p id="trash-error" class="error" role="alert"></p>
        <ul id="trash-list" class="trash-list" aria-label="Entries in the trash"></ul>
        <p id="trash-empty" class="empty-state" hidden>The trash is empty.</p>
        <p><button type="button" id="empty-trash" class="danger">Empty trash</button></p>
      </section>
    </section>
    <section id="revealed" class="entry-detail" aria-labelledby="revealed-heading" hidden>
      <div class="detail-head">
        <button type="button" id="back-to-list" class="secondary back">Back to the list</button>
        <span id="detail-avatar" class="avatar large" aria-hidden="true"></span>
        <div class="detail-title">
          <h2 id="revealed-heading" tabindex="-1">Entry</h2>
          <p id="detail-site" class="muted"></p>
        </div>
      </div>
      <p id="detail-shared" class="shared-note" hidden></p>
      <div class="row detail-actions">
        <button type="button" id="favorite-entry" class="secondary" aria-pressed="false"><span class="star" aria-hidden="true">☆</span> Favourite</button>
        <button type="button" id="edit-entry" class="secondary">Edit</button>
        <button type="button" id="delete-entry" class="danger">Delete</button>
        <button type="button" id="hide-revealed" class="secondary">Close</button>
      </div>
      <div id="detail-folder" class="row detail-folder">
        <label for="entry-folder">In folder</label>
        <select id="entry-folder"></select>
      </div>
      <div id="detail-tabs" class="tabs" role="tablist" aria-label="Entry sections"></div>
      <div id="entry-tools">
        <section id="panel-details" class="tab-panel" role="tabpanel" aria-labelledby="tab-details" data-tool="details">
          <p id="detail-error" class="error" role="alert"></p>
          <dl id="revealed-fields" class="fields"></dl>
        </section>
      </div>
    </section>
    <p id="detail-placeholder" class="detail-placeholder muted">Select an entry to see its details.</p>
  </div>
  <dialog id="entry-dialog" class="entry-dialog" aria-labelledby="form-heading">
    <form id="entry-form" method="post" action="/vault">
      <div class="dialog-head">
        <h2 id="form-heading">New entry</h2>
        <button type="button" id="cancel-edit" class="secondary">Cancel</button>
      </div>
      <input type="hidden" id="entry-id" name="id">
      <label for="f-name">Name</label>
      <input id="f-name" name="name" required maxlength="500">
      <label for="f-kind">Entry kind</label>
      <select id="f-kind" name="kind"><option value="login">Login</option><option value="note">Secure note</option><option value="card">Card</option><option value="identity">Identity</option><option value="ssh_key">SSH key</option></select>
      <label for="f-card-holder" class="card-only">Cardholder</label>
      <input id="f-card-holder" class="card-only" autocomplete="off">
      <label for="f-card-number" class="card-only">Card number</label>
      <input id="f-card-number" class="card-only" autocomplete="off" inputmode="numeric" maxlength="32">
      <label for="f-card-month" class="card-only">Expiry month (MM)</label>
      <input id="f-card-month" class="card-only" inputmode="numeric" maxlength="2">
      <label for="f-card-year" class="card-only">Expiry year (YYYY)</label>
      <input id="f-card-year" class="card-only" inputmode="numeric" maxlength="4">
      <label for="f-card-code" class="card-only">Security code</label>
      <input id="f-card-code" class="card-only" type="password" autocomplete="off" maxlength="8">
      <label class="login-only" for="f-website">Website</label>
      <input class="login-only" id="f-website" name="website" placeholder="example.com" maxlength="2048">
      <label class="login-only" for="f-url">URL</label>
      <input class="login-only" id="f-url" name="url" type="url" placeholder="https://example.com/login" maxlength="2048">
      <label class="login-only" for="f-username">Username</label>
      <input class="login-only" id="f-username" name="username" autocomplete="off">
      <label class="login-only" for="f-password">Password</label>
      <div class="login-only password-row">
        <input id="f-password" name="password" type="password" autocomplete="new-password" aria-describedby="strength-text">
        <button type="button" id="f-password-show" class="secondary" aria-controls="f-password">Show</button>
      </div>
      <div id="strength" class="login-only strength" data-score="">
        <meter id="strength-meter" min="0" max="4" low="2" high="3" optimum="4" value="0" aria-label="Password strength"></meter>
        <p id="strength-text" class="hint" aria-live="polite"></p>
      </div>
      <div class="login-only" id="generator-box"></div>
      <label for="f-notes">Notes</label>
      <textarea id="f-notes" name="notes" rows="3"></textarea>
      <label for="f-category">Category</label>
      <input id="f-category" name="category">
      <label for="f-totp" class="login-only">TOTP secret</label>
      <input id="f-totp" class="login-only" name="totp" autocomplete="off">
      <label for="f-folder">Folder</label>
      <input id="f-folder" name="folder" list="folder-names" maxlength="200">
      <datalist id="folder-names"></datalist>
      <label for="f-tags">Tags (comma-separated)</label>
      <input id="f-tags" name="tags">
      <div class="row">
        <button type="submit" id="save" disabled>Save</button>
      </div>
      <p id="form-error" class="error" role="alert"></p>
    </form>
  </dialog>
</div>`;
