/**
 * What the vault page asks of the store and the server: an entry's secrets, whether the vault is
 * bound, and whether the store's entries can have changed since the page read them.
 */
import { ApiError, OfflineError } from "../../../../core/api";
import type { EntrySecrets } from "../../../../core/crypto";
import type { LocalEntry } from "../../../../core/store";
import type { AppContext } from "../../shell/context";

/**
 * The secrets of an entry. Online, an entry without queued changes is read through the reveal
 * endpoint, so the server records the audit event; offline, or with local changes, the local copy.
 */
export async function auditedSecrets(app: AppContext, e: LocalEntry): Promise<EntrySecrets> {
  const { db, session, api, vault } = app;
  const isQueued = (await db.pending(session.userId)).some((p) => p.entryId === e.id);
  if (navigator.onLine && !isQueued) {
    try {
      const { envelope } = await api.reveal(e.id);
      return await vault.secrets(e, {
        wrapped_item_key: envelope.wrappedItemKey,
        encrypted_data: envelope.encryptedData,
      });
    } catch (err) {
      if (!(err instanceof OfflineError) && !(err instanceof ApiError && err.status === 404))
        throw err;
    }
  }
  return vault.secrets(e);
}

/**
 * Once every entry is bound on the server (synced, none unbound locally, nothing queued), this
 * device refuses unbound envelopes of this vault from then on: a server can no longer serve a
 * pre-migration blob in another entry's place.
 */
export async function noteFullyBound(app: AppContext, all: LocalEntry[]) {
  const { db, session, vault, trust } = app;
  if (!(await db.meta(`lastSync:${session.userId}`)) || (await db.pendingCount(session.userId)) > 0)
    return;
  if ((await vault.legacyCount(all)) === 0) await trust.raise({ bound: true });
}

/**
 * What can have changed the store's entries, in three small records: the pull's position (a pull
 * that stored a change moves it; one cut part-way leaves its resume mark) and the queue of local
 * changes (every local write queues one; a push applied or refused takes it off). A sync after
 * which none moved changed no entry: the page keeps its snapshot rather than read and open every
 * entry again (at 10,000 entries a long task on every periodic sync, and the search table made
 * again at the next keystroke).
 */
export async function storeMark(app: AppContext): Promise<{ mark: string; firstSync: boolean }> {
  const { db, session } = app;
  const [cursor, resume, pending] = await Promise.all([
    db.meta(`cursor:${session.userId}`),
    db.meta(`resume:${session.userId}`),
    db.pending(session.userId),
  ]);
  // No cursor yet: the store has never held the whole vault, its first pull is still under way.
  return {
    mark: JSON.stringify([
      cursor ?? null,
      resume ?? null,
      pending.map((p) => [p.seq, p.entryId, p.clientUpdatedAt, p.lastError ?? ""]),
    ]),
    firstSync: cursor === undefined,
  };
}
