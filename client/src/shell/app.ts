/**
 * The app shell (/work/SHELL.md): header with sync state, lock and sign-out; navigation with a
 * section per capability; a client-side router that mounts one section at a time into #app-main.
 * Sections are loaded on demand, and every bundle is pre-cached by the service worker, so a section
 * whose data is in the local store opens offline.
 */
import { ApiClient } from "../../../core/api";
import { installConfirmDialog } from "./confirm-dialog";
import { keyVersion, type VaultKeys, TrustStore } from "../../../core/crypto";
import { registerThisDevice } from "../../../core/device";
import { nextTask, Vault } from "../../../core/vault";
import {
  warmPullWorker,
  SyncEngine,
  type SyncHost,
  type SyncState,
  LiveSync,
  liveSyncProtocols,
  liveSyncUrl,
} from "../../../core/sync";
import type { LocalDb, Session } from "../../../core/store";
import { lockSettings, lockVault, recordActivity, type LockSettings } from "../../../core/session";
import type { LiveSyncTopic } from "../../../src/kernel/live-sync";
import { $, precacheDeferred, requestBackgroundSync } from "../pages/common";
import { announceKeysChanged, LOCK_SETTINGS_EVENT, watchIdle } from "../pages/lock";
import type { AppContext, ToastAction, Unmount } from "./context";
import { resumeResets } from "../reset/manager";
import { ensureSharingKey } from "../keys/sharing-key";
import { resolveSection } from "./router";
import { buildNav } from "./nav";
import { sections } from "./sections";
import { labelTables } from "./tables";
import { errorText } from "../../../core/ui";

export type ShellHooks = {
  /**
   * Set once the sync engine runs, so sign-out can stop it, and stop the page: the idle watch and
   * the open section, whose teardown writes what it held back (the vault's last-used order) before
   * sign-out clears the store, never after it.
   */
  started(engine: SyncEngine, stopPage: () => void): void;
};

export async function startShell(
  db: LocalDb,
  session: Session,
  keys: VaultKeys,
  hooks: ShellHooks,
) {
  performance.mark("vault:shell-start");
  // The section's module is fetched and run while the shell starts (the trust store, the status
  // line), not after: go() below then finds it loaded.
  void resolveSection(sections, location.pathname)
    ?.section.load()
    .catch(() => undefined);
  // The sync engine's pulls are sent by the pull worker: its script loads while the shell starts.
  warmPullWorker();
  const api = new ApiClient();
  // One answer for every refusal that wants the person (2FA code, recent sign-in): the dialog.
  installConfirmDialog(api);
  // Every call names this browser's device (x-device-fingerprint); registering refreshes it. In a
  // task of its own: the fingerprint's WebGL probe (a GL context made) took tens of milliseconds
  // inside the shell's start, one long task of both on a new browser's way to its first row.
  void nextTask().then(() => registerThisDevice(api, session.userId));
  const trust = await TrustStore.open(session.userId);
  await trust.raise({ keyVersion: keyVersion(keys) });
  // Unbound (version 1) envelopes open only until this device has seen the vault fully bound.
  const vault = new Vault(db, session.userId, keys, async () => !(await trust.floor()).bound);
  const toastEl = $("toast");
  const listeners = new Set<() => void | Promise<void>>();
  const liveListeners = new Set<{ topic: LiveSyncTopic; fn: () => void | Promise<void> }>();

  /** The message on screen now: a later one replaces it, and only its own timer clears it. */
  let shown = 0;
  function toast(text: string, action?: ToastAction) {
    const mine = ++shown;
    toastEl.replaceChildren(text);
    if (action) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "toast-action";
      button.textContent = action.label;
      button.addEventListener("click", () => {
        if (mine === shown) toastEl.replaceChildren();
        action.run();
      });
      toastEl.append(" ", button);
    }
    // Long enough to reach an action's button (WCAG 2.2.1 asks for time to act on it).
    setTimeout(
      () => {
        if (mine === shown) toastEl.replaceChildren();
      },
      action ? 10_000 : 4000,
    );
  }

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
  // Live sync: the hub's notices pull at once (a hidden tab pulls when shown, as rule 4 has it),
  // and a current device's periodic runs skip the pull.
  sync.setPullGate(
    new LiveSync({
      url: liveSyncUrl(""),
      protocols: liveSyncProtocols(),
      cursor: () => db.meta<string>(`cursor:${session.userId}`),
      onStale: () => host.isVisible() && void sync.syncNow(),
      // What the pull does not carry: the mounted section that shows it reads it again.
      onTopic: (topic) => {
        for (const l of [...liveListeners])
          if (l.topic === topic)
            void Promise.resolve(l.fn()).catch((e: unknown) => console.error(e));
      },
    }),
  );

  /** The network line reads only memory, so it is drawn at once, ahead of any queued repaint. */
  function renderNet() {
    const online = navigator.onLine && lastState.phase !== "offline";
    const net = $("net-state");
    net.dataset.state = online ? "online" : "offline";
    net.textContent = online
      ? lastState.phase === "syncing"
        ? "Online · syncing…"
        : "Online"
      : "Offline";
    // A sentence, never the status or code (those stay in lastError, for diagnostics).
    if (lastState.phase === "error")
      net.textContent = `Online · ${lastState.message ?? "sync did not finish; it tries again shortly"}`;
    // The identity provider's token expired: local data stays, sync resumes after signing in again.
    $("signin-again").hidden = !(lastState.phase === "error" && lastState.needsSignIn);
  }

  /** The status line's figures, read from the store; `showStatus` draws them. */
  async function readStatus() {
    const [n, last] = await Promise.all([
      db.pendingCount(session.userId),
      db.meta<string>(`lastSync:${session.userId}`),
    ]);
    return { n, last };
  }

  function showStatus({ n, last }: { n: number; last: string | undefined }) {
    renderNet();
    const pending = $("pending");
    pending.textContent = `${n} pending ${n === 1 ? "change" : "changes"}`;
    pending.dataset.count = String(n);
    $("last-sync").textContent = last
      ? `Last synced ${new Date(last).toLocaleTimeString()}`
      : "Not synced yet";
  }

  /**
   * Repaints run one at a time, and a request while one runs queues one more (merged with any
   * already queued): two overlapping paints could otherwise finish out of order, and one that read
   * the vault before a pull would overwrite what the pull's own paint showed. The section first: a
   * pending count that names a change is never shown before the section shows it. The count is read
   * before the section draws and shown in the same turn the section finishes: read after, the old
   * count ("0 pending") stood beside a list already showing a queued change for as long as that read
   * took, and "0 pending" is what a person (and a test) takes for "saved on the server". A push that
   * ends meanwhile queues its own repaint, which shows the newer count.
   */
  let painting: Promise<void> = Promise.resolve();
  let queued: { sections: boolean; run: Promise<void> } | null = null;
  function repaint(sections: boolean): Promise<void> {
    if (queued) {
      queued.sections ||= sections;
      return queued.run;
    }
    const job = { sections, run: Promise.resolve() };
    job.run = painting.then(async () => {
      queued = null;
      const status = await readStatus();
      if (job.sections) await Promise.all([...listeners].map((fn) => fn()));
      showStatus(status);
    });
    queued = job;
    painting = job.run.catch((e: unknown) => console.error(e));
    return job.run;
  }

  const app: AppContext = {
    session,
    api,
    db,
    keys,
    vault,
    trust,
    sync,
    subpath: "",
    navigate: (path) => void go(path, true),
    toast,
    refresh: () => repaint(true),
    async changed() {
      await repaint(true);
      await requestBackgroundSync();
      if (navigator.onLine) void sync.syncNow();
    },
    onSynced(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    onLive(topic, fn) {
      const l = { topic, fn };
      liveListeners.add(l);
      return () => liveListeners.delete(l);
    },
  };

  const main = $("app-main");
  labelTables(main);
  const nav = buildNav(
    $("app-nav"),
    $("nav-list"),
    $("menu-toggle") as HTMLButtonElement,
    sections,
    (path) => void go(path, true),
  );

  let unmount: Unmount | null = null;
  let generation = 0;

  /** Mounts the section of `path`; a newer navigation started meanwhile wins. */
  async function go(path: string, push: boolean) {
    const url = new URL(path, location.origin);
    // The mail OAuth callback lands on /dashboard?integration=… (DECISIONS D8): that is the mailboxes' news.
    if (url.pathname === "/dashboard" && url.searchParams.has("integration")) {
      url.pathname = "/mailboxes";
      history.replaceState(null, "", url);
    }
    if (push && url.pathname + url.search !== location.pathname + location.search)
      history.pushState(null, "", url);
    const mine = ++generation;
    unmount?.();
    unmount = null;
    listeners.clear();
    liveListeners.clear();
    const match = resolveSection(sections, url.pathname);
    nav.current(match?.section.id);
    main.replaceChildren();
    main.removeAttribute("data-section");
    if (!match) {
      const h1 = document.createElement("h1");
      h1.textContent = "Not found";
      const p = document.createElement("p");
      p.textContent =
        "No section of the app lives at this address. Choose one from the navigation.";
      main.append(h1, p);
      document.title = "Not found · Credential vault";
      return;
    }
    document.title = `${match.section.title} · Credential vault`;
    const mod = await match.section.load();
    performance.mark("vault:section-loaded");
    if (mine !== generation) return;
    const root = document.createElement("div");
    main.append(root);
    main.dataset.section = match.section.id;
    let result: Awaited<ReturnType<typeof mod.mount>>;
    try {
      result = await mod.mount(root, { ...app, subpath: match.subpath });
    } catch (e) {
      // A section that could not open says so in a sentence (never a code); the page goes on.
      if (mine !== generation) return;
      const p = document.createElement("p");
      p.className = "error";
      p.setAttribute("role", "alert");
      p.textContent = `${match.section.title} could not open: ${errorText(e)}`;
      root.append(p);
      return;
    }
    if (mine !== generation) {
      if (typeof result === "function") result();
      return;
    }
    unmount = typeof result === "function" ? result : null;
    // A section reached for one thing (a notification's action) names what takes the focus.
    if (push)
      (
        main.querySelector<HTMLElement>("[data-focus-on-arrival]") ??
        main.querySelector("h1") ??
        main
      ).focus?.();
  }

  addEventListener("popstate", () => void go(location.pathname + location.search, false));

  /** Reloading is what drops the keys from memory: nothing of this page's state survives it. */
  let locking = false;
  async function lock() {
    if (locking) return;
    locking = true;
    sync.stop();
    unmount?.();
    main.replaceChildren();
    await lockVault(db, session.userId, keys);
    announceKeysChanged();
    location.reload();
  }
  $("lock").addEventListener("click", () => void lock());
  let idleMs = (await lockSettings(db, session.userId)).idleMinutes * 60_000;
  const takeLockSettings = (ev: Event) => {
    idleMs = (ev as CustomEvent<LockSettings>).detail.idleMinutes * 60_000;
  };
  // Registered ahead of the idle watch's own listener: it re-checks with the new limit.
  addEventListener(LOCK_SETTINGS_EVENT, takeLockSettings);
  const stopIdle = watchIdle(
    () => void lock(),
    (at) => void recordActivity(db, session.userId, at),
    () => idleMs,
  );
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
    if (ev.data?.type === "VAULT_SYNCED") void repaint(true);
  });

  $("sync-now").hidden = false;
  $("lock").hidden = false;
  showStatus(await readStatus());
  hooks.started(sync, () => {
    stopIdle();
    removeEventListener(LOCK_SETTINGS_EVENT, takeLockSettings);
    unmount?.();
    unmount = null;
    main.replaceChildren();
  });
  // The engine starts before the section mounts, not after: a first sync's request then overlaps
  // the section's load and first read, and a mount that opens entries already stored (a pull made
  // ahead of the sign-in, a reload) does not hold the pull back until its pass is done. Pages
  // stored before the section listens are in its first read of the store.
  sync.start();
  await go(location.pathname + location.search, false);
  performance.mark("vault:section-mounted");
  // Only now the bundles no start needs (the health check's, the importer's): offline they open too.
  precacheDeferred();
  // Resets this device started and has not saved yet (one may have ended while no tab was open).
  void resumeResets(app);
  // A vault that has no sharing key yet gets one now, so others can invite this person at once
  // (a failure, offline or refused, is tried again at the next unlock).
  void ensureSharingKey(app).catch(() => undefined);
  document.body.dataset.ready = "true";
  return app;
}
