import { ApiClient, ApiError, OfflineError } from "../api";
import { keyVersion, type EntrySecrets, type VaultKeys } from "../crypto";
import { openDb, type LocalEntry, type Session } from "../db";
import { idleTooLong, lockVault, recordActivity } from "../passphrase";
import { clearSyncCache, currentSession, signOut } from "../session";
import { SyncEngine, syncOnce, type SyncHost, type SyncState } from "../sync-engine";
import { TrustStore } from "../trust";
import { Vault, type EntryInput } from "../vault";
import { $, input, registerServiceWorker } from "./common";
import { announceKeysChanged, setupChangePassphrase, showLockScreen, watchIdle } from "./lock";

const REVEAL_HIDE_MS = 30_000;

const db = await openDb();
const current = await currentSession(db);
// Not awaited: offline, registration waits on the failing update check, and the vault renders first.
const registration = registerServiceWorker();
let engine: SyncEngine | null = null;
let stopIdle: (() => void) | null = null;
if (!current) location.replace("/");
else await boot(current.session, current.keys);

async function requestBackgroundSync() {
  try {
    const bg = ((await registration) as (ServiceWorkerRegistration & { sync?: { register(tag: string): Promise<void> } }) | null)?.sync;
    await bg?.register("vault-sync");
  } catch {
    // Background Sync is optional; the timer and the online event still push the queue.
  }
}

async function boot(session: Session, keys: VaultKeys | undefined) {
  $("user").textContent = session.email ?? session.userId;
  // Rule 7, also from the lock screen: the queue needs no keys to be pushed.
  $("sign-out").addEventListener("click", () => {
    void (async () => {
      engine?.stop();
      stopIdle?.();
      // Queued changes would be lost with the store: one last push while the connection allows it.
      if (navigator.onLine) await syncOnce(db, new ApiClient(), session.userId).catch(() => undefined);
      await signOut(db);
      location.replace("/");
    })();
  });
  // The idle limit also counts the time no dashboard was open.
  if (keys && (await idleTooLong(db, session.userId))) {
    await lockVault(db, session.userId, keys);
    keys = undefined;
  }
  if (keys) await main(session, keys);
  else showLockScreen(db, session.userId, (k) => main(session, k));
}

async function main(session: Session, keys: VaultKeys) {
  const api = new ApiClient();
  const trust = await TrustStore.open(session.userId);
  await trust.raise({ keyVersion: keyVersion(keys) });
  const vault = new Vault(db, session.userId, keys, async () => !(await trust.floor()).bound);

  const host: SyncHost = {
    isOnline: () => navigator.onLine,
    isVisible: () => document.visibilityState === "visible",
    on(event, fn) {
      const target = event === "online" ? window : document;
      target.addEventListener(event, fn);
      return () => target.removeEventListener(event, fn);
    },
  };

  let lastState: SyncState = { phase: "idle" };
  const sync = new SyncEngine(db, api, session.userId, host, (s) => {
    lastState = s;
    renderNet();
    void repaint(s.phase !== "syncing");
  });

  const form = $("entry-form") as HTMLFormElement;
  const list = $("entries");
  const toastEl = $("toast");
  let hideTimer: ReturnType<typeof setTimeout> | undefined;

  function toast(text: string) {
    toastEl.textContent = text;
    setTimeout(() => {
      if (toastEl.textContent === text) toastEl.textContent = "";
    }, 4000);
  }

  /** The network line reads only memory, so it is drawn at once, ahead of any queued repaint. */
  function renderNet() {
    const online = navigator.onLine && lastState.phase !== "offline";
    const net = $("net-state");
    net.dataset.state = online ? "online" : "offline";
    net.textContent = online ? (lastState.phase === "syncing" ? "Online · syncing…" : "Online") : "Offline";
    if (lastState.phase === "error") net.textContent = `Online · sync failed (${lastState.lastError ?? "unknown error"})`;
    // The identity provider's token expired: local data stays, sync resumes after signing in again.
    $("signin-again").hidden = !(lastState.phase === "error" && lastState.lastError?.startsWith("401"));
  }

  async function renderStatus() {
    renderNet();
    const n = await db.pendingCount(session.userId);
    const pending = $("pending");
    pending.textContent = `${n} pending ${n === 1 ? "change" : "changes"}`;
    pending.dataset.count = String(n);
    const last = await db.meta<string>(`lastSync:${session.userId}`);
    $("last-sync").textContent = last ? `Last synced ${new Date(last).toLocaleTimeString()}` : "Not synced yet";
  }

  function button(label: string, aria: string, onClick: () => void, secondary = true) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = label;
    b.setAttribute("aria-label", aria);
    if (secondary) b.className = "secondary";
    b.addEventListener("click", onClick);
    return b;
  }

  async function renderList() {
    // Re-sealed entries are queued updates: send them now rather than at the next periodic sync.
    if ((await vault.migrate()) > 0 && navigator.onLine) void sync.syncNow();
    const { unreadable, reasons } = await vault.ensureIndexed();
    await noteFullyBound();
    const count = `${unreadable} ${unreadable === 1 ? "entry" : "entries"}`;
    $("foreign-key").hidden = unreadable === 0;
    // Refused envelopes say why; the rest are under another vault key, most likely after a
    // passphrase change on another device.
    $("foreign-key").textContent = reasons.length
      ? `${count} not shown. ${reasons.join(" ")}`
      : `${count} cannot be opened with this device's key. If the master passphrase was changed on another device, sign out and sign in with the new one.`;
    const query = input("search").value.trim();
    const entries = query ? await vault.search(query) : await vault.list();
    const queued = new Set((await db.pending(session.userId)).map((p) => p.entryId));
    list.replaceChildren(
      ...entries.map((e) => {
        const li = document.createElement("li");
        li.dataset.id = e.id;
        const name = document.createElement("span");
        name.className = "name";
        name.textContent = e.name;
        const site = document.createElement("span");
        site.className = "muted";
        site.textContent = e.website ?? e.url ?? "";
        li.append(name, site);
        if (queued.has(e.id)) {
          const mark = document.createElement("span");
          mark.className = "pending-mark";
          mark.textContent = "not yet synced";
          li.append(mark);
        }
        const actions = document.createElement("span");
        actions.className = "actions";
        actions.append(
          button("Reveal", `Reveal ${e.name}`, () => void reveal(e)),
          button("Copy password", `Copy password of ${e.name}`, () => void copy(e)),
          button("Edit", `Edit ${e.name}`, () => void edit(e)),
          button("Delete", `Delete ${e.name}`, () => void remove(e)),
        );
        li.append(actions);
        return li;
      }),
    );
    $("empty").hidden = entries.length > 0;
    $("entries-heading").textContent = query ? `Entries matching “${query}” (${entries.length})` : `Entries (${entries.length})`;
  }

  /**
   * Once every entry is bound on the server (synced, none unbound locally, nothing queued), this
   * device refuses unbound envelopes of this vault from then on: a server can no longer serve a
   * pre-migration blob in another entry's place.
   */
  async function noteFullyBound() {
    if (!(await db.meta(`lastSync:${session.userId}`)) || (await db.pendingCount(session.userId)) > 0) return;
    if ((await vault.legacyCount()) === 0) await trust.raise({ bound: true });
  }

  /**
   * Repaints run one at a time, and a request while one runs queues one more (merged with any
   * already queued): two overlapping paints could otherwise finish out of order, and one that read
   * the vault before a pull would overwrite what the pull's own paint showed. The list goes first:
   * a pending count that names a change is never shown before the list shows it.
   */
  let painting: Promise<void> = Promise.resolve();
  let queued: { list: boolean; run: Promise<void> } | null = null;
  function repaint(list: boolean): Promise<void> {
    if (queued) {
      queued.list ||= list;
      return queued.run;
    }
    const job = { list, run: Promise.resolve() };
    job.run = painting.then(async () => {
      queued = null;
      if (job.list) await renderList();
      await renderStatus();
    });
    queued = job;
    painting = job.run.catch((e: unknown) => console.error(e));
    return job.run;
  }
  const refresh = () => repaint(true);

  /**
   * The secrets of an entry. Online, an entry without queued changes is read through the reveal
   * endpoint, so the server records the audit event; offline, or with local changes, the local copy.
   */
  async function secretsOf(e: LocalEntry): Promise<EntrySecrets> {
    const queued = (await db.pending(session.userId)).some((p) => p.entryId === e.id);
    if (navigator.onLine && !queued) {
      try {
        const { envelope } = await api.reveal(e.id);
        return await vault.secrets(e, { wrapped_item_key: envelope.wrappedItemKey, encrypted_data: envelope.encryptedData });
      } catch (err) {
        if (!(err instanceof OfflineError) && !(err instanceof ApiError && err.status === 404)) throw err;
      }
    }
    return vault.secrets(e);
  }

  async function reveal(e: LocalEntry) {
    try {
      const s = await secretsOf(e);
      const fields: [string, string][] = [
        ["Username", s.username],
        ["Password", s.password],
        ["Notes", s.notes],
        ["Category", s.category],
        ["TOTP secret", s.totp],
      ];
      $("revealed-fields").replaceChildren(
        ...fields.flatMap(([k, v]) => {
          const dt = document.createElement("dt");
          dt.textContent = k;
          const dd = document.createElement("dd");
          dd.textContent = v || "—";
          dd.dataset.field = k.toLowerCase().split(" ")[0];
          return [dt, dd];
        }),
      );
      $("revealed-heading").textContent = e.name;
      $("revealed").hidden = false;
      clearTimeout(hideTimer);
      hideTimer = setTimeout(hideRevealed, REVEAL_HIDE_MS);
    } catch (err) {
      toast(`Cannot reveal: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  function hideRevealed() {
    $("revealed").hidden = true;
    $("revealed-fields").replaceChildren();
  }

  async function copy(e: LocalEntry) {
    try {
      await navigator.clipboard.writeText((await secretsOf(e)).password);
      toast(`Password of ${e.name} copied`);
    } catch (err) {
      toast(`Cannot copy: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  function fillForm(id: string, v: Partial<EntryInput>) {
    input("entry-id").value = id;
    input("f-name").value = v.name ?? "";
    input("f-website").value = v.website ?? "";
    input("f-url").value = v.url ?? "";
    input("f-username").value = v.username ?? "";
    input("f-password").value = v.password ?? "";
    ($("f-notes") as HTMLTextAreaElement).value = v.notes ?? "";
    input("f-category").value = v.category ?? "";
    input("f-totp").value = v.totp ?? "";
    input("f-tags").value = (v.tags ?? []).join(", ");
    $("form-heading").textContent = id ? `Edit ${v.name ?? ""}` : "Add an entry";
    $("cancel-edit").hidden = !id;
  }

  async function edit(e: LocalEntry) {
    try {
      const s = await vault.secrets(e);
      fillForm(e.id, { ...s, name: e.name, website: e.website ?? "", url: e.url ?? "", tags: e.tags });
      input("f-name").focus();
    } catch (err) {
      toast(`Cannot edit: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  async function remove(e: LocalEntry) {
    if (!confirm(`Delete ${e.name}?`)) return;
    await vault.remove(e.id);
    await changed();
  }

  /** After a local change: show it, ask for a sync now, and leave a background sync for the worker. */
  async function changed() {
    await refresh();
    await pushSoon();
  }

  async function pushSoon() {
    await requestBackgroundSync();
    if (navigator.onLine) void sync.syncNow();
  }

  function setBusy(busy: boolean) {
    form.setAttribute("aria-busy", String(busy));
    for (const el of Array.from(form.elements)) (el as HTMLInputElement).disabled = busy;
  }

  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    $("form-error").textContent = "";
    const v: EntryInput = {
      name: input("f-name").value,
      website: input("f-website").value,
      url: input("f-url").value,
      username: input("f-username").value,
      password: input("f-password").value,
      notes: ($("f-notes") as HTMLTextAreaElement).value,
      category: input("f-category").value,
      totp: input("f-totp").value,
      tags: input("f-tags").value.split(",").map((t) => t.trim()).filter(Boolean),
    };
    const id = input("entry-id").value;
    // The form is locked while the entry is encrypted and stored, so nothing typed meanwhile is lost.
    setBusy(true);
    (id ? vault.update(id, v) : vault.create(v))
      .then(async () => {
        // The form is handed back once the list and the pending count show the saved entry.
        await refresh();
        fillForm("", {});
        setBusy(false);
        toast(id ? `Saved ${v.name.trim()}` : `Added ${v.name.trim()}`);
        await pushSoon();
      })
      .catch((err: unknown) => {
        setBusy(false);
        $("form-error").textContent = err instanceof Error ? err.message : String(err);
      });
  });

  $("cancel-edit").addEventListener("click", () => fillForm("", {}));
  $("hide-revealed").addEventListener("click", hideRevealed);
  input("search").addEventListener("input", () => void refresh());
  $("sync-now").addEventListener("click", () => void sync.syncNow());
  window.addEventListener("offline", () => {
    lastState = { phase: "offline" };
    renderNet();
    void repaint(false);
  });
  window.addEventListener("online", () => {
    renderNet();
    void repaint(false);
  });
  navigator.serviceWorker?.addEventListener("message", (ev: MessageEvent<{ type?: string }>) => {
    if (ev.data?.type === "VAULT_SYNCED") void refresh();
  });

  /** Reloading is what drops the keys from memory: nothing of this page's state survives it. */
  let locking = false;
  async function lock() {
    if (locking) return;
    locking = true;
    sync.stop();
    hideRevealed();
    list.replaceChildren();
    $("vault-view").hidden = true;
    await lockVault(db, session.userId, keys);
    announceKeysChanged();
    location.reload();
  }
  $("lock").addEventListener("click", () => void lock());
  stopIdle = watchIdle(
    () => void lock(),
    (at) => void recordActivity(db, session.userId, at),
  );

  setupChangePassphrase({
    db,
    userId: session.userId,
    keys,
    async before() {
      if (navigator.onLine) await sync.syncNow();
      sync.stop();
    },
    async after() {
      // Cached sync responses hold envelopes under the old key; an offline pull must not bring them back.
      await clearSyncCache();
      await requestBackgroundSync();
      location.reload();
    },
    failed: () => sync.start(),
  });

  fillForm("", {});
  $("vault-view").hidden = false;
  $("sync-now").hidden = false;
  $("lock").hidden = false;
  await refresh();
  engine = sync;
  sync.start();
  // Until here the form cannot submit (see dashboard.html): a native submission would put the
  // entry's secrets in a request.
  ($("save") as HTMLButtonElement).disabled = false;
  document.body.dataset.ready = "true";
}
