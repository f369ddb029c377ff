/** The app shell's page script (served at /vault, every other section path, and /dashboard). */
import { ApiClient } from "../../../core/api";
import type { VaultKeys } from "../../../core/crypto";
import { openDb, type Session } from "../../../core/store";
import {
  idleTooLong,
  lockSettings,
  lockVault,
  currentSession,
  signOut,
} from "../../../core/session";
import { startEntryReader } from "../../../core/vault";
import { startShell } from "../shell/app";
import { syncOnce, type SyncEngine } from "../../../core/sync";
import { $, registerServiceWorker } from "./common";
import { browserClosedSinceUnlock, markBrowserSession, showLockScreen } from "./lock";

performance.mark("vault:page-start");
const db = await openDb();
const current = await currentSession(db);
// An open vault's first read is opened in the entry reader's worker: its script loads and starts
// beside the shell's start and the section's load instead of after them.
if (current?.keys && location.pathname === "/vault") startEntryReader();
// Not awaited: offline, registration waits on the failing update check, and the vault renders first.
void registerServiceWorker();
let engine: SyncEngine | null = null;
let stopPage: (() => void) | null = null;
if (!current) location.replace(`/?next=${encodeURIComponent(location.pathname + location.search)}`);
else await boot(current.session, current.keys);

async function boot(session: Session, keys: VaultKeys | undefined) {
  $("user").textContent = session.email ?? session.userId;
  // Rule 7, also from the lock screen: the queue needs no keys to be pushed.
  $("sign-out").addEventListener("click", () => {
    void (async () => {
      engine?.stop();
      stopPage?.();
      // Queued changes would be lost with the store: one last push while the connection allows it.
      if (navigator.onLine)
        await syncOnce(db, new ApiClient(), session.userId).catch(() => undefined);
      await signOut(db);
      location.replace("/");
    })();
  });
  // The idle limit also counts the time no page of the app was open; "lock when the browser
  // closes" finds the browser's session cookie gone.
  if (
    keys &&
    ((await idleTooLong(db, session.userId)) ||
      ((await lockSettings(db, session.userId)).onBrowserClose && browserClosedSinceUnlock()))
  ) {
    await lockVault(db, session.userId, keys);
    keys = undefined;
  }
  if (keys) markBrowserSession();
  const open = (k: VaultKeys) =>
    startShell(db, session, k, {
      started(sync, stop) {
        engine = sync;
        stopPage = stop;
      },
    }).then(() => undefined);
  if (keys) await open(keys);
  else showLockScreen(db, session.userId, open);
}
