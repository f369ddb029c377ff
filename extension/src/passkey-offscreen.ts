/**
 * The passkey provider's place in the offscreen vault: the provider (passkey-vault.ts) wired to the
 * unlocked vault and its entry lookup, and the vault's answers to the passkey messages the service
 * worker forwards (a page's request, the person's answer from the frame that owns its session).
 */
import { OfflineError } from "../../core/api";
import { gatedSync } from "../../core/sync";
import type { Forwarded } from "./background";
import { openedCandidates, type LookupVault } from "./entry-lookup";
import { PasskeyProvider } from "./passkey-vault";

type Wiring<S extends LookupVault> = {
  /** The unlocked vault, or null when locked. */
  state(): S | null;
  /** Whether live sync's session is the one in force (entry-lookup.ts `candidates`). */
  inForce(): boolean;
  /** Pushes pending saves (pulls when live sync does not vouch for the copy) and refreshes the fill index. */
  sync(s: S): Promise<void>;
  touch(): void;
};

/** Passkey requests of pages, answered from the vault. */
export function vaultPasskeys<S extends LookupVault>(w: Wiring<S>): PasskeyProvider {
  /**
   * The push and index refresh after the last new passkey, while under way. A sign-in that follows
   * a registration at once (the site's next page) waits for it: until then neither the server's
   * match nor the fill index knows the entry that holds the passkey just made.
   */
  let saving: Promise<void> | null = null;
  return new PasskeyProvider({
    vault: () => w.state()?.vault ?? null,
    entriesFor: async (pageUrl) => {
      await saving;
      const s = w.state();
      if (!s) return [];
      const { list } = await openedCandidates(s, pageUrl, w.inForce());
      return list.flatMap(({ c, o }) =>
        o ? [{ id: c.id, name: c.name, secrets: o.secrets }] : [],
      );
    },
    saved: () => {
      const s = w.state();
      if (!s) return;
      const done: Promise<void> = w.sync(s).catch(() => undefined);
      saving = done;
      void done.then(() => saving === done && (saving = null));
    },
    pull: async () => {
      const s = w.state();
      if (s) await w.sync(s);
    },
    counted: () => {
      const s = w.state();
      if (s)
        void gatedSync(s.vault.db, s.api, s.userId, s.live).catch(
          (e: unknown) => e instanceof OfflineError || console.warn(`sync failed: ${String(e)}`),
        );
    },
    touch: w.touch,
  });
}

/** The vault's answer to a passkey message, or `undefined` for any other message. */
export function passkeyMessage(
  passkeys: PasskeyProvider,
  m: Forwarded,
): Promise<unknown> | unknown {
  switch (m.type) {
    case "passkey-request":
      return passkeys.open(m.nonce, m.request, {
        pageUrl: m.pageUrl ?? "",
        crossOriginFrame: m.crossOriginFrame ?? false,
        tabId: m.tabId,
        frameId: m.frameId,
        documentId: m.documentId,
      });
    case "passkey-answer": {
      // Only the frame that owns the session answers; for any other, or a session gone, null (the page is not told).
      const session = passkeys.sessions.of(m.nonce, m.tabId, m.senderDocumentId);
      return session ? passkeys.answer(session, m.choice) : null;
    }
    default:
      return undefined;
  }
}
