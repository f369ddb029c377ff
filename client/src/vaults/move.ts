/**
 * Moving an entry between the personal vault and a shared one (docs/decisions/client.md, "Client:
 * shared vaults in the web app"). An envelope is bound to its entry, owner and host, so a move is
 * a new entry sealed on this device for its destination and the old one deleted: the destination
 * is written first and the source deleted only once the server holds the new copy. A cut between
 * the two leaves the entry in both places, never in neither.
 */
import { addVaultEntry, vaultsApi, type OpenedVault, type VaultEntry } from "../../../core/vaults";
import type { AppContext } from "../shell/context";

/** Why an entry is not moved; nothing was written when this is thrown before the first write. */
export class MoveRefused extends Error {}

/** A copy the move wrote while the source stayed: the person is told both are there. */
export class MoveHalfDone extends Error {}

/**
 * A personal entry into the shared vault. Files attached to it would be left behind with a
 * deleted entry, so such an entry is refused rather than moved without them.
 */
export async function moveIntoVault(
  app: AppContext,
  v: OpenedVault,
  personalId: string,
): Promise<string> {
  const e = await app.db.entry(app.session.userId, personalId);
  if (!e) throw new MoveRefused("This entry is no longer in your personal vault.");
  const { attachments } = await app.api.attachments(personalId);
  if (attachments.length)
    throw new MoveRefused(
      `${e.name} has files attached: files do not move between vaults yet, so it stays where it is.`,
    );
  const secrets = await app.vault.secrets(e);
  const newId = await addVaultEntry(vaultsApi(app.api), v, {
    name: e.name,
    website: e.website ?? null,
    url: e.url ?? null,
    secrets,
  });
  // The vault's copy is on the server (both of addVaultEntry's writes answered): now the source goes.
  try {
    await app.vault.remove(personalId);
    await app.changed();
  } catch (err) {
    throw new MoveHalfDone(
      `${e.name} is in ${v.name} now, but its personal copy was not deleted (${(err as Error).message}): delete it from your vault yourself.`,
    );
  }
  return newId;
}

/** Whether the server has taken this device's queued change of `id` (a few sync runs at most). */
async function reachedServer(app: AppContext, id: string): Promise<boolean> {
  for (let i = 0; i < 3; i++) {
    // A run already going when the change was queued may have started before it: run again.
    await app.sync.syncNow();
    const left = await app.db.pending(app.session.userId);
    if (!left.some((m) => m.entryId === id)) return true;
  }
  return false;
}

/** An entry of the shared vault into the person's own vault (editors and above: the source is deleted). */
export async function moveToPersonal(
  app: AppContext,
  v: OpenedVault,
  e: VaultEntry,
): Promise<string> {
  if (!e.secrets) throw new MoveRefused(e.error ?? "This entry does not open, so it cannot move.");
  const newId = await app.vault.create({
    ...e.secrets,
    name: e.name,
    website: e.website ?? "",
    url: e.url ?? "",
    tags: [],
  });
  if (!(await reachedServer(app, newId)))
    throw new MoveHalfDone(
      `${e.name} is copied into your personal vault on this device, but the copy has not reached the server yet, so it also stays in ${v.name}. Delete it here once your vault has synced.`,
    );
  try {
    await vaultsApi(app.api).deleteEntry(v.vault.id, e.id);
  } catch (err) {
    throw new MoveHalfDone(
      `${e.name} is in your personal vault now, but the copy in ${v.name} was not deleted (${(err as Error).message}). Delete it here yourself.`,
    );
  }
  return newId;
}
