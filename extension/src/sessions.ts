/**
 * Sessions of the extension's frames, kept by the offscreen vault. A content script opens one with
 * a random nonce it hands only to the frame it created (postMessage to the extension's origin), so
 * a page that embeds the web-accessible frame page itself has no session to show. The session
 * names the document that asked (tab, frame id, document id) and, once a frame presents the nonce,
 * the frame's own document: only that document may act on it.
 */
import type { MatchReply } from "./messages";

export type FrameSession<S> = {
  nonce: string;
  kind: "fill" | "save" | "passkey";
  tabId: number;
  frameId: number;
  documentId: string;
  pageUrl: string;
  crossOriginFrame: boolean;
  /** The extension frame's document, set when it presents the nonce. */
  frameDocumentId?: string;
  openedAt: number;
  save?: S;
  /**
   * A fill menu's lookup, started before its frame asks for it (offscreen.ts `lookAhead`), and when;
   * "taken" once the frame's show has used it, so one press asks the server once.
   */
  lookup?: { reply: Promise<MatchReply>; at: number } | "taken";
};

/** A session left unused this long is forgotten (the page was left open, the menu never used). */
const TTL_MS = 30 * 60_000;
/** At most this many open sessions per tab: a page opening menus in a loop cannot fill memory. */
const PER_TAB = 8;

export class FrameSessions<S> {
  private readonly byNonce = new Map<string, FrameSession<S>>();

  open(nonce: string, s: Omit<FrameSession<S>, "nonce" | "openedAt">) {
    if (!/^[0-9a-f-]{36}$/.test(nonce) || this.byNonce.has(nonce)) return;
    const now = Date.now();
    const sameTab = [...this.byNonce.values()].filter(
      (x) => x.tabId === s.tabId || now - x.openedAt > TTL_MS,
    );
    for (const old of sameTab) {
      // A newer menu of the same document replaces the older one; an expired one just goes.
      if (now - old.openedAt > TTL_MS || old.documentId === s.documentId)
        this.byNonce.delete(old.nonce);
    }
    const left = [...this.byNonce.values()].filter((x) => x.tabId === s.tabId);
    if (left.length >= PER_TAB) this.byNonce.delete(left[0]!.nonce);
    this.byNonce.set(nonce, { ...s, nonce, openedAt: now });
  }

  /** The first frame in the session's tab to present the nonce owns it; nobody else ever does. */
  attach(
    nonce: string,
    tabId: number | undefined,
    frameDocumentId: string | undefined,
  ): FrameSession<S> | null {
    const s = this.byNonce.get(nonce);
    if (!s || tabId !== s.tabId || !frameDocumentId || s.frameDocumentId) return null;
    s.frameDocumentId = frameDocumentId;
    return s;
  }

  /** The session, when asked by the frame that owns it. */
  of(
    nonce: string,
    tabId: number | undefined,
    frameDocumentId: string | undefined,
  ): FrameSession<S> | null {
    const s = this.byNonce.get(nonce);
    if (!s || s.tabId !== tabId || !frameDocumentId || s.frameDocumentId !== frameDocumentId)
      return null;
    return s;
  }

  /** The session, when asked by the document that opened it (a content script, as the browser names its sender). */
  opener(
    nonce: string,
    tabId: number | undefined,
    documentId: string | undefined,
  ): FrameSession<S> | null {
    const s = this.byNonce.get(nonce);
    if (!s || s.tabId !== tabId || !documentId || s.documentId !== documentId) return null;
    return s;
  }

  has(nonce: string): boolean {
    return this.byNonce.has(nonce);
  }

  close(nonce: string) {
    this.byNonce.delete(nonce);
  }

  clear() {
    this.byNonce.clear();
  }
}
