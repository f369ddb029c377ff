/**
 * The vault section (/vault): a searchable list beside the open entry's detail (its own view on a
 * phone), new and edit in a dialog, and the keyboard path from a search to the clipboard.
 */
import { queryTokens, type EntrySecrets } from "../../../../core/crypto";
import type { LocalEntry, PulledChange } from "../../../../core/store";
import { scope } from "../../pages/common";
import { takeUnlocked } from "../../../../core/ui";
import { EntryReader, nextTask, READER_BATCH } from "../../../../core/vault";
import type { AppContext, Unmount } from "../../shell/context";
import { EntryDetail } from "./detail";
import { EntryForm } from "./form";
import { Arrivals, inOrderOf, withArrivals } from "./arrivals";
import { EntryList, type Row } from "./list";
import { VAULT_MARKUP } from "./markup";
import { Organiser } from "./organise";
import { needles, queryWords, SearchIndex, shortNeedles } from "./search";
import { ListAnswers, ordered, RowCache, withSharedRows } from "./filter";
import { SHARED_PREFIX, SharedEntries } from "./shared";
import { mountVaultPlaces } from "./places";
import { DeviceState } from "./device";
import { bindDisclosures, bindSearchKeys } from "./keys";
import { auditedSecrets, noteFullyBound, storeMark } from "./secrets";
import { drawStatus, drawTags, drawUnreadable } from "./status";
import { VaultTrash } from "./trash";
/** How often a search or filter on screen follows entries opened in the background. */
const FOLLOW_MS = 150;
/** Just under the sync period (30 s): the periodic sync's paint reads the shares each time. */
const SHARES_REREAD_MS = 25_000;

export async function mount(root: HTMLElement, app: AppContext): Promise<Unmount> {
  const { db, session, keys, vault, sync, toast } = app;
  root.innerHTML = VAULT_MARKUP;
  // Lookups in this section's root, never the document's: the reading pass and a store read may
  // answer after the person has gone to another section, when the page no longer has #entries.
  const { $, input } = scope(root);
  const panes = $("vault-panes");
  const search = input("search");
  let gone = false;
  const device = await DeviceState.load(db, session.userId);
  /** The store as last read, sorted by name: searches run on it without reading the store again. */
  let snapshot: LocalEntry[] = [];
  let queued = new Set<string>();
  let searched = 0;
  /** Whether the store has been read once (until then the cached listing is on screen; `firstRead` then). */
  let loaded = false;
  /** Whether the store read last was part of a first sync (more pages of the vault to come). */
  let growing = false;
  let readDone = () => {};
  const firstRead = new Promise<void>((r) => (readDone = r));
  /** The entry last opened, for focus to return to its row. */
  let lastOpen: string | null = null;
  /** Usernames opened on this page (they are in the encrypted part): shown in the rows. */
  const usernames = new Map<string, string>();
  const index = new SearchIndex();
  const list = new EntryList($("entries"), usernames, (id) => void openById(id));
  /** The pass that reads every entry (usernames, marks, folders); a folder's rename waits for it. */
  let reading: Promise<void> = Promise.resolve();
  const organiser = new Organiser(
    app,
    () => void filter(),
    () => reading,
  );
  const shared = new SharedEntries(app);
  let places: ReturnType<typeof mountVaultPlaces> | null = null;
  /** Opens entries for the pass below in a Worker, off the page's main thread. */
  const reader = new EntryReader(keys, session.userId);
  const rowCache = new RowCache();
  const favourite = (e: LocalEntry) => organiser.of(e)?.favorite === true;
  const rowOf = (e: LocalEntry): Row => rowCache.of(e, favourite(e));
  /** The snapshot by id: an entry opens from memory, its row's data at hand. */
  let byId = new Map<string, LocalEntry>();
  /**
   * Counts what a search's answer depends on besides its own inputs (the snapshot, what was
   * learnt from opened entries, last uses): an answer of the same version may be narrowed further.
   */
  let version = 0;

  const detail = new EntryDetail({
    app,
    $,
    secretsOf: async (e) => {
      const share = shared.find(e.id);
      if (share) return shared.secrets(share);
      const s = await auditedSecrets(app, e);
      if (learn(e, s)) {
        organiser.drawFolders();
        void filter();
      }
      return s;
    },
    edit: (e) => void edit(e),
    remove: (e) => void remove(e),
    closed: () => {
      showDetail(false);
      list.focus(lastOpen);
    },
  });
  const trash = new VaultTrash(app, $, $("list-pane"), () => app.changed());
  const form = new EntryForm(app, (id) => {
    if (detail.entry?.id === id) void openById(id, false);
  });

  /**
   * Notes an opened entry's username and organisation; true when the list as filtered now may
   * change: its organisation changed, or its username makes it match the search.
   */
  function learn(e: LocalEntry, s: EntrySecrets): boolean {
    const before = usernames.get(e.id);
    usernames.set(e.id, s.username);
    list.setUsername(e.id, s.username);
    index.note(e, s.username);
    const words = needles(queryWords(search.value));
    const found =
      words.length > 0 &&
      before !== s.username &&
      index.matches(e, s.username, words) !== index.matches(e, before, words);
    const organised = organiser.learn(e, s);
    // The search table holds favourite marks (and the order by them): made again when one changed.
    // A username alone changes one entry's search key, taken in place.
    if (organised) version++;
    else if (before !== s.username) answers.rekey(e.id);
    return organised || found;
  }

  function showDetail(open: boolean) {
    panes.dataset.view = open ? "detail" : "list";
    $("detail-placeholder").hidden = open;
    if (!open) {
      list.select(null);
      organiser.showOpen(null);
    }
  }

  const answers = new ListAnswers({
    entries: () => ordered(snapshot, sortBy.value, favourite, device.used),
    keyOf: (e) =>
      usernames.has(e.id) || e.search_tokens === null ? index.keyOf(e, usernames.get(e.id)) : null,
    plainKeyOf: (e) => index.keyOf(e, usernames.get(e.id)),
    rowOf,
  });
  /** The snapshot's table in the list's order (made again when the order or the version changed). */
  const tableOf = () => answers.tableFor(`${sortBy.value}\u0001${version}`);

  /**
   * Draws the snapshot filtered by the search box; a newer keystroke supersedes an older one.
   * `arriving`: a pull's pages are arriving. Then, and while the first sync is under way, the full
   * listing is not kept for the next mount (each page would clone thousands of rows into the store,
   * on the main thread the pull needs), and the list draws only the rows in view however short it
   * is yet (more pages are coming).
   */
  async function filter(arriving = false) {
    if (!loaded) return;
    const mine = ++searched;
    const query = search.value.trim();
    // Entries opened on this page match on their words in memory; the others on their blind-index
    // tokens (which cover the username), hashed only while such an entry is left; without tokens
    // (not indexed yet) on their name and site. The snapshot is kept in the list's order: no sort.
    const words = queryWords(query);
    const hashed = words.length && tableOf().tokens ? await queryTokens(keys, query) : [];
    if (gone || mine !== searched) return;
    const tag = ($("tag-filter") as HTMLSelectElement).value;
    const own = answers.answer(tableOf(), {
      words,
      needles: needles(words),
      hashed,
      short: shortNeedles(words),
      tag,
      organised: organiser.active() ? (e) => organiser.matches(e) : null,
      scope: organiser.describe(),
    });
    // Shared entries carry no tag, favourite or folder of this person's: they show unfiltered, or alone.
    const withShared = !tag && organiser.sharedShown();
    const sharedRows = withShared ? shared.rows(query) : [];
    const rows = organiser.sharedOnly()
      ? sharedRows
      : withSharedRows(own, sharedRows, sortBy.value);
    list.draw(rows, queued, arriving || growing);
    if (!arriving && !growing && !query && !tag && !organiser.active())
      void device.keepListing(own);
    drawStatus($, {
      query,
      tag,
      scope: organiser.describe(),
      folder: organiser.folderShown(),
      organised: organiser.active(),
      shown: rows.length,
      total: snapshot.length + shared.items.length,
    });
    places?.count();
  }

  const sortBy = $("sort") as HTMLSelectElement;
  await device.followSort(sortBy);
  /**
   * Opens the entries not yet read on this page (or changed since), a slice per task, while the
   * page stays responsive: their usernames for the rows, their favourite marks and folders for
   * the filters. A filtered list follows as entries are read; the whole list is drawn again once,
   * at the end, if what it shows changed. `changed` says whether an earlier pass changed it already.
   */
  async function fillUsernames(all: LocalEntry[], changed: boolean) {
    const todo = all.filter((e) => !organiser.of(e));
    for (let i = 0; i < todo.length && !gone; i += READER_BATCH) {
      let found = false;
      const slice = todo.slice(i, i + READER_BATCH);
      // Opened in the worker; what it leaves (placeholders, unbound envelopes to migrate, refused
      // ones) is opened here.
      const read = await reader.read(slice, false);
      const rest: LocalEntry[] = [];
      for (const e of slice) {
        const s = read.get(e.id)?.secrets;
        if (!s) rest.push(e);
        else if (learn(e, s)) found = true;
      }
      await Promise.all(
        rest.map(async (e) => {
          const placeholder = {
            username: e.username ?? "",
            password: "",
            notes: "",
            category: "",
            totp: "",
          };
          try {
            if (learn(e, e.encryption_version === -1 ? placeholder : await vault.secrets(e)))
              found = true;
          } catch {
            // Unreadable: the foreign-key notice says why.
          }
        }),
      );
      changed ||= found;
      if (found && filtered()) await filter();
      await new Promise((r) => setTimeout(r, 0));
    }
    if (gone) return;
    $("entries").dataset.read = String(Math.round(performance.now()));
    if (!changed) return;
    organiser.drawFolders();
    await filter();
  }

  /**
   * Whether the list follows entries as they are read: it shows a subset (a search or a filter), or
   * puts favourites first (a favourite is known once its entry is read).
   */
  const filtered = () =>
    !!search.value.trim() ||
    !!($("tag-filter") as HTMLSelectElement).value ||
    organiser.active() ||
    sortBy.value === "favourites";

  /**
   * Puts a pull's changes, as the store took them, into the snapshot the list is drawn from: a first
   * sync lists its first entries long before it ends. The paint after the pull reads the store and
   * opens the entries as before.
   */
  function takeArrivals(changes: PulledChange[]) {
    // An entry with a change queued here keeps the local copy (the store does too).
    const fresh = changes.filter((c) => !queued.has(c.id));
    if (!fresh.length) return;
    snapshot = withArrivals(snapshot, fresh);
    for (const c of fresh) {
      if ("tombstone" in c) byId.delete(c.id);
      else byId.set(c.id, c);
    }
    version++;
  }
  const arrivals = new Arrivals(sync, {
    ready: () => loaded && !gone,
    empty: () => snapshot.length === 0,
    merge(changes) {
      takeArrivals(changes);
      drawTags($, snapshot, changes);
    },
    // The list is drawn in a task of its own (the table made again from 10,000 entries and the
    // merge were one long task of both), but for the first page, drawn at once.
    draw(first) {
      const drawn = first ? filter(true) : nextTask().then(() => filter(true));
      void drawn.then(() => first && performance.mark("vault:first-rows-listed"));
      if (first) void openFirstRows();
    },
  });

  /** The usernames of the rows at the top of a list that has just appeared, opened in the worker. */
  async function openFirstRows() {
    const top = tableOf()
      .entries.slice(0, READER_BATCH)
      .filter((e) => !usernames.has(e.id));
    const read = await reader.read(top, false);
    performance.mark("vault:first-rows-opened");
    if (gone) return;
    let found = false;
    for (const e of top) {
      const s = read.get(e.id)?.secrets;
      if (s && learn(e, s)) found = true;
    }
    if (!found) return;
    // What these rows carry (marks, folders) is known now: the pass after the pull finds it known.
    organiser.drawFolders();
    void filter();
  }

  /** What could change the store as it was before the snapshot's read (vault-secrets.ts). */
  let readAt = "";

  /** Reads the shares received again (the server's); the list is drawn again when they changed. */
  let sharesReadAt = 0;
  const reloadShares = () => {
    sharesReadAt = Date.now();
    return shared.load().then((changed) => void (changed && !gone && filter()));
  };
  /**
   * After a sync that changed no entry: the shares are read again only when the last read is a
   * sync period old. Live sync's "shares" notice reads them at once; without it, the periodic
   * sync still does. Every paint asking sent four reads of the same list as the vault opened.
   */
  const reloadSharesIfStale = () =>
    Date.now() - sharesReadAt >= SHARES_REREAD_MS ? reloadShares() : undefined;

  async function renderList() {
    const { mark, firstSync } = await storeMark(app);
    growing = firstSync;
    // Nothing changed the entries: only the shares (the server's) are read again.
    if (loaded && mark === readAt) return void reloadSharesIfStale();
    readAt = mark;
    // Set when the pass below has read every entry (in page time): what the bench waits for.
    delete $("entries").dataset.read;
    // Pages not taken yet are listed now (a pull has ended: its last ones waited for the read below).
    // One read of the store serves the whole paint; pages stored during the read are taken over it.
    arrivals.flush();
    arrivals.restart();
    const all = await vault.entries();
    snapshot = await inOrderOf(all, snapshot);
    // The map of every entry in a task of its own: the order's last pass was the one before.
    await nextTask();
    byId = new Map(snapshot.map((e) => [e.id, e]));
    version++;
    queued = new Set((await db.pending(session.userId)).map((p) => p.entryId));
    takeArrivals(arrivals.all());
    if (gone) return;
    loaded = true;
    drawTags($, snapshot);
    await filter();
    if (snapshot.length) performance.mark("vault:first-rows-listed");
    // A delete or restore (here, once pushed, or on another device) changes what the trash holds.
    if (!growing) trash.noteLive(`${snapshot.length}/${queued.size}`);
    readDone();
    // Shares come from the server (the Sharing page's copy offline): the list follows when they change.
    void reloadSharesIfStale();

    // The rows are listed (those in view are in the page) before the pass below, which floods the
    // page's task queue with Web Crypto completions. Then what needs the keys, with the list already on screen: unbound entries re-sealed (queued
    // updates, sent now rather than at the next periodic sync), placeholders sealed, search tokens
    // computed for what came from the server, every entry read. `reading` settles when all are.
    let finish = () => {};
    reading = new Promise<void>((r) => (finish = r));
    try {
      const migrated = await vault.migrate(all);
      // Indexing opens the entries the server brought: the rows learn their usernames from it, and
      // a search or filter on screen follows a few times a second.
      let learnt = false;
      let follow: ReturnType<typeof setTimeout> | undefined;
      const { unreadable, reasons, sealed } = await vault.ensureIndexed(
        all,
        (e, s) => {
          if (!learn(e, s)) return;
          learnt = true;
          if (filtered() && follow === undefined)
            follow = setTimeout(() => ((follow = undefined), void filter()), FOLLOW_MS);
        },
        reader,
      );
      if ((migrated > 0 || sealed > 0) && navigator.onLine) void sync.syncNow();
      await noteFullyBound(app, all);
      if (gone) return;
      drawUnreadable($, unreadable, reasons);
      // The store changed under the list just drawn: one more paint shows it. New search tokens
      // need no new read: the entries they were computed for were opened, and match in memory.
      if (migrated > 0 || sealed > 0) void app.refresh();
      else {
        const done = finish;
        finish = () => {};
        void fillUsernames(snapshot, learnt).finally(done);
      }
    } finally {
      finish();
    }
  }

  /**
   * Opens an entry by id: at once from the snapshot the rows were drawn from, then, if the store
   * holds a newer copy (a change not yet painted), again from that copy.
   */
  async function openById(id: string, focus = true) {
    const share = id.startsWith(SHARED_PREFIX) ? shared.find(id) : undefined;
    const e = share ? share.entry : (byId.get(id) ?? (await db.entry(session.userId, id)));
    if (gone) return;
    if (!e) {
      toast("That entry is no longer in the vault");
      return;
    }
    void detail.open(e, share?.mark);
    lastOpen = id;
    device.touch(id);
    // Only the "last used" order changes with an open: other orders keep their search table.
    if (sortBy.value === "used") version++;
    list.select(id);
    organiser.showOpen(id);
    showDetail(true);
    if (focus) $("revealed-heading").focus();
    if (share) return;
    const stored = await db.entry(session.userId, id);
    if (gone || detail.entry !== e) return;
    if (!stored) toast("That entry is no longer in the vault");
    else if (
      stored.encrypted_data !== e.encrypted_data ||
      stored.wrapped_item_key !== e.wrapped_item_key ||
      stored.updated_at !== e.updated_at ||
      stored.name !== e.name
    )
      void detail.open(stored);
  }

  async function edit(e: LocalEntry) {
    try {
      const s = await vault.secrets(e);
      form.open(
        e.id,
        { ...s, name: e.name, website: e.website ?? "", url: e.url ?? "", tags: e.tags },
        organiser.folders(),
      );
    } catch (err) {
      toast(`Cannot edit: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Into the trash at once (no question asked): the toast's Undo, or the Trash, brings it back. */
  async function remove(e: LocalEntry) {
    await vault.remove(e.id);
    detail.close();
    showDetail(false);
    toast(`Moved ${e.name} to Trash`, { label: "Undo", run: () => void undo(e) });
    await app.changed();
  }

  async function undo(e: LocalEntry) {
    try {
      await vault.restore(e);
      toast(`Restored ${e.name}`);
    } catch (err) {
      toast(`Cannot restore ${e.name}: ${err instanceof Error ? err.message : String(err)}`);
    }
    await app.changed();
  }

  search.addEventListener("input", () => {
    // A search is for the entries: the trash gives the list its place back.
    trash.show(false);
    void filter();
  });
  for (const id of ["sort", "tag-filter"]) $(id).addEventListener("change", () => void filter());
  // Enter typed before the store's first read (the cached listing is not filtered) waits for the answer.
  const openFirst = () =>
    void firstRead.then(() => !gone && list.firstId() && void openById(list.firstId()!));
  const unbindKeys = bindSearchKeys(
    search,
    list,
    openFirst,
    $("entry-dialog") as HTMLDialogElement,
  );
  const unbindDisclosures = bindDisclosures($, $("entry-dialog") as HTMLDialogElement);
  for (const id of ["new-entry", "empty-new"])
    $(id).addEventListener("click", () => form.open("", {}, organiser.folders()));
  // Through the shell's paint queue, so two renderings never interleave.
  const stopListening = app.onSynced(() => renderList());
  // A share accepted or revoked elsewhere: only the received shares are read again (own entries
  // did not change), and the list is drawn again when they did.
  const stopLive = app.onLive("shares", reloadShares);

  $("vault-view").hidden = false;
  showDetail(false);
  places = mountVaultPlaces($("vault-places"), app, () => snapshot.length);
  const cached = await device.cachedListing();
  if (cached?.length && !search.value.trim()) {
    list.draw(cached, new Set());
    $("empty").hidden = true;
    $("entries-heading").textContent = `Entries (${cached.length})`;
  }
  // Just unlocked or signed in, the focus is nowhere: the search takes it (type, Enter, c). A load or a
  // reload leaves Tab's first stop to the skip link; a navigation moves the focus to the heading after
  // the mount (the shell); a touch screen gets no keyboard unasked.
  const unlockedNow = takeUnlocked();
  if (
    unlockedNow &&
    (!document.activeElement || document.activeElement === document.body) &&
    matchMedia("(pointer: fine)").matches
  )
    search.focus();
  await app.refresh();
  // /vault?open=<id> (the health page's links to an entry): that entry opens.
  const wanted = new URLSearchParams(location.search).get("open");
  if (wanted) void openById(wanted);
  // Until here the form cannot submit (see vault-markup.ts): a native submission would put the
  // entry's secrets in a request.
  form.enable();
  return () => {
    device.flush();
    detail.destroy();
    form.close();
    gone = true;
    list.destroy();
    reader.close();
    unbindKeys();
    unbindDisclosures();
    stopListening();
    stopLive();
    places?.stop();
    arrivals.stop();
  };
}
