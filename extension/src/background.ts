/**
 * The service worker: routes messages between the popup, content scripts and the offscreen vault,
 * stamping each with facts the sender cannot forge (the frame's URL and whether it is cross-origin,
 * from the browser's `sender`), the web app's origin and the session read from its cookie.
 */
import { deviceKeyPair } from "../../core/crypto";
import { authCookieAt, tokenClaims } from "../../core/session";
import type {
  FillReply,
  FrameAttached,
  FrameView,
  PasskeyChoice,
  PasskeyResult,
  PickReply,
  Request,
  Status,
  ToContent,
} from "./messages";
import { senderOrigin } from "./sender-origin";
import type { FrameSession } from "./sessions";
import { Timeline, type Marks } from "./timeline";
import type { Seen } from "./visibility";

declare const __APP_ORIGIN__: string;

/** Requests only the service worker makes of the vault, on behalf of a frame it has identified. */
type Internal =
  | { type: "frame-session"; nonce: string }
  | { type: "passkey-answer"; nonce: string; choice: PasskeyChoice };

export type Forwarded = (Request | Internal) & {
  target: "offscreen";
  appOrigin: string;
  token: string | null;
  autoLockMs: number;
  pageUrl?: string;
  crossOriginFrame?: boolean;
  tabId?: number;
  /** The asking content script's frame and document, from the browser's `sender`. */
  frameId?: number;
  documentId?: string;
  /** An extension frame's own document, from `sender`. */
  senderDocumentId?: string;
};

const OFFSCREEN = "offscreen.html";
/** This worker's marks of a menu's way (timeline.ts), shown beside the vault's. */
const timeline = new Timeline();
let creating: Promise<void> | null = null;
let offscreenOpen = false;
let cachedSettings: Promise<{ appOrigin: string; autoLockMs: number }> | null = null;

/** Read once per service-worker life and again after any change: a fill should not wait on storage. */
function settings() {
  cachedSettings ??= chrome.storage.local
    .get(["appOrigin", "autoLockSeconds"])
    .then((s: { appOrigin?: string; autoLockSeconds?: number }) => ({
      appOrigin: s.appOrigin ?? __APP_ORIGIN__,
      autoLockMs: (s.autoLockSeconds ?? 15 * 60) * 1000,
    }));
  return cachedSettings;
}
chrome.storage.onChanged.addListener(() => (cachedSettings = null));

/** The web app's session: its auth cookie (HTTP-only in production), read through the cookies API. */
async function sessionToken(appOrigin: string): Promise<string | null> {
  const cookie = await chrome.cookies.get({ url: appOrigin, name: authCookieAt(appOrigin) });
  return cookie?.value || null;
}

async function ensureOffscreen() {
  // A document being created is listed before its script listens: wait for the creation.
  if (creating) await creating;
  if (offscreenOpen) return;
  const open = await chrome.runtime.getContexts({
    contextTypes: [chrome.runtime.ContextType.OFFSCREEN_DOCUMENT],
  });
  offscreenOpen = open.length > 0;
  if (offscreenOpen) return;
  creating ??= chrome.offscreen
    .createDocument({
      url: OFFSCREEN,
      reasons: [chrome.offscreen.Reason.WORKERS],
      justification: "Holds the unlocked vault keys in memory only",
    })
    .finally(() => (creating = null));
  await creating;
  offscreenOpen = true;
}

async function toVault<T>(m: Request | Internal, extra: Partial<Forwarded> = {}): Promise<T> {
  const [, { appOrigin, autoLockMs }] = await Promise.all([ensureOffscreen(), settings()]);
  const forwarded = {
    ...m,
    ...extra,
    target: "offscreen",
    appOrigin,
    autoLockMs,
    token: await sessionToken(appOrigin),
  } as Forwarded;
  let reply: T & { error?: string };
  try {
    reply = await chrome.runtime.sendMessage(forwarded);
  } catch (e) {
    // The document is gone (closed by the browser): open it again, once.
    if (!offscreenOpen || !String(e).includes("Receiving end does not exist")) throw e;
    offscreenOpen = false;
    await ensureOffscreen();
    reply = await chrome.runtime.sendMessage(forwarded);
  }
  if (reply && typeof reply === "object" && "error" in reply && reply.error)
    throw new Error(reply.error);
  return reply;
}

const originOf = (url: string | undefined) => {
  try {
    return url ? new URL(url).origin : "null";
  } catch {
    return "null";
  }
};

async function status(): Promise<Status> {
  const { appOrigin } = await settings();
  const token = await sessionToken(appOrigin);
  let email: string | null = null;
  let signedIn = false;
  if (token) {
    try {
      email = tokenClaims(token).email;
      signedIn = true;
    } catch {
      signedIn = false;
    }
  }
  const vault = await toVault<{
    unlocked: boolean;
    pending: number;
    lastSync: string | null;
    cached: number;
    synced: boolean;
    current: boolean;
    twoFactorRequired: boolean;
    healthReady: boolean;
  }>({ type: "status" });
  return {
    signedIn,
    email,
    appOrigin,
    ...vault,
    twoFactorRequired: signedIn && vault.twoFactorRequired,
    unlocked: signedIn && vault.unlocked,
  };
}

async function fromExtensionPage(m: Request): Promise<unknown> {
  switch (m.type) {
    case "token":
      return sessionToken((await settings()).appOrigin);
    case "status":
      return status();
    case "timeline":
      return {
        ...(await toVault<Marks>(m)),
        ...Object.fromEntries(Object.entries(timeline.all).map(([k, v]) => [`sw-${k}`, v])),
      };
    case "unlock":
      timeline.reset();
      return toVault(m);
    case "lock":
    case "verify-2fa":
    // Secure links are made from the popup only: content scripts and frames have no such case.
    case "link-entries":
    case "link-fields":
    case "link-create":
      return toVault(m);
    case "match": {
      // The popup's list is for the tab's top document as it is now; its fill goes to that document only.
      if (m.tabId === undefined) return toVault(m, { pageUrl: m.url, crossOriginFrame: false });
      const frame = await chrome.webNavigation.getFrame({ tabId: m.tabId, frameId: 0 });
      if (!frame) return { locked: false, items: [], source: "server" };
      return {
        ...(await toVault<object>(m, { pageUrl: frame.url, crossOriginFrame: false })),
        documentId: frame.documentId,
      };
    }
    case "fill-tab":
      return fillTab(m.tabId, m.documentId, m.id, m.confirmed ?? false);
    default:
      return null;
  }
}

/** The popup's fill: the page URL is the document's own, read again; a navigation since cancels it. */
async function fillTab(
  tabId: number,
  documentId: string | undefined,
  id: string,
  confirmed: boolean,
): Promise<PickReply> {
  const frame = documentId
    ? await chrome.webNavigation.getFrame({ tabId, documentId }).catch(() => null)
    : null;
  if (!documentId || !frame || frame.parentFrameId !== -1)
    return { ok: false, reason: "navigated" };
  const reply = await toVault<FillReply>(
    { type: "fill", id, confirmed },
    { pageUrl: frame.url, crossOriginFrame: false },
  );
  if (!reply.ok) return reply;
  if (
    !(await toDocument(
      tabId,
      { frameId: 0, documentId },
      { type: "do-fill", credentials: reply.credentials },
    ))
  )
    return { ok: false, reason: "navigated" };
  return reply.warning ? { ok: true, warning: reply.warning } : { ok: true };
}

/**
 * A message to one document: the one that asked, by frame id and document id. When that document
 * is gone (the tab navigated, the frame was replaced) the browser refuses to deliver, and nothing
 * reaches whatever is there now.
 */
async function toDocument<T>(
  tabId: number,
  at: { frameId: number; documentId: string },
  m: ToContent,
): Promise<T | null> {
  try {
    return (
      ((await chrome.tabs.sendMessage(tabId, m, {
        frameId: at.frameId,
        documentId: at.documentId,
      })) as T) ?? null
    );
  } catch {
    return null;
  }
}

type Session = FrameSession<unknown>;

/** Passkey requests the vault holds, by nonce: the document that asked, as the browser named it. */
const passkeyAsks = new Map<string, Pick<Session, "kind" | "tabId" | "frameId" | "documentId">>();

/**
 * An extension frame in a page (menu.html). It can only present its session's nonce and act on
 * that session, which names its own document: a frame a page embeds by itself has none. Before a
 * secret is released the content script that opened the frame judges it visible (visibility.ts).
 */
async function fromFrame(m: Request, sender: chrome.runtime.MessageSender): Promise<unknown> {
  const who = { tabId: sender.tab?.id, senderDocumentId: sender.documentId };
  switch (m.type) {
    case "frame-attach":
      return toVault<FrameAttached>(m, who);
    case "frame-show": {
      timeline.mark("menu-show-asked");
      const view = await toVault<FrameView>(m, who);
      timeline.mark("menu-show-answered");
      return view;
    }
    case "frame-pick": {
      const session = await toVault<Session | null>({ type: "frame-session", nonce: m.nonce }, who);
      if (session?.kind !== "fill") return { ok: false, reason: "gone" } satisfies PickReply;
      const seen = await toDocument<Seen>(session.tabId, session, {
        type: "frame-visible",
        nonce: m.nonce,
      });
      if (!seen) return { ok: false, reason: "navigated" } satisfies PickReply;
      if (!seen.ok) return { ok: false, reason: `not-visible: ${seen.reason}` } satisfies PickReply;
      const reply = await toVault<FillReply>(
        { type: "fill", id: m.id, confirmed: m.confirmed },
        { pageUrl: session.pageUrl, crossOriginFrame: session.crossOriginFrame },
      );
      if (!reply.ok) return reply;
      // A warning (fill-health.ts) keeps the menu open to show it; the fill goes ahead either way.
      const done = await toDocument<boolean>(session.tabId, session, {
        type: "do-fill",
        nonce: m.nonce,
        credentials: reply.credentials,
        keep: !!reply.warning,
      });
      if (!done) return { ok: false, reason: "navigated" } satisfies PickReply;
      return (
        reply.warning ? { ok: true, warning: reply.warning } : { ok: true }
      ) satisfies PickReply;
    }
    case "frame-save": {
      const session = await toVault<Session | null>({ type: "frame-session", nonce: m.nonce }, who);
      if (session?.kind !== "save") return { saved: false };
      if (m.accept) {
        const seen = await toDocument<Seen>(session.tabId, session, {
          type: "frame-visible",
          nonce: m.nonce,
        });
        if (!seen?.ok) return { saved: false, refused: seen ? seen.reason : "navigated" };
      }
      return inTabOrder(session.tabId, () => toVault(m, who));
    }
    case "frame-passkey": {
      // The person's answer to a page's passkey request: only after the content script that opened
      // the frame judges it visible does the vault make or use a key; the page then gets the result.
      // The asking document is known from its request (the vault is asked only after this worker
      // restarted); the vault itself answers only the frame that owns the session.
      const session =
        passkeyAsks.get(m.nonce) ??
        (await toVault<Session | null>({ type: "frame-session", nonce: m.nonce }, who));
      if (session?.kind !== "passkey" || session.tabId !== who.tabId)
        return { ok: false, reason: "gone" } satisfies PickReply;
      if (m.choice !== "cancel") {
        const seen = await toDocument<Seen>(session.tabId, session, {
          type: "passkey-visible",
          nonce: m.nonce,
        });
        if (!seen) return { ok: false, reason: "navigated" } satisfies PickReply;
        if (!seen.ok)
          return { ok: false, reason: `not-visible: ${seen.reason}` } satisfies PickReply;
      }
      const result = await toVault<PasskeyResult | null>(
        { type: "passkey-answer", nonce: m.nonce, choice: m.choice },
        who,
      );
      if (!result) return { ok: false, reason: "gone" } satisfies PickReply;
      passkeyAsks.delete(m.nonce);
      const told = await toDocument<boolean>(session.tabId, session, {
        type: "passkey-result",
        nonce: m.nonce,
        result,
      });
      return (told ? { ok: true } : { ok: false, reason: "navigated" }) satisfies PickReply;
    }
    default:
      return null;
  }
}

/** A tab's sign-in and its next page's save offer reach the vault in the order they happened. */
const tabChains = new Map<number, Promise<unknown>>();
function inTabOrder<T>(tabId: number | undefined, run: () => Promise<T>): Promise<T> {
  if (tabId === undefined) return run();
  const next = (tabChains.get(tabId) ?? Promise.resolve()).catch(() => undefined).then(run);
  tabChains.set(tabId, next);
  void next
    .finally(() => tabChains.get(tabId) === next && tabChains.delete(tabId))
    .catch(() => undefined);
  return next;
}

/**
 * What a content script whose document has no origin of its URL's own (sender-origin.ts) gets: no
 * menu session, no save, and a passkey request refused as WebAuthn refuses an opaque origin.
 */
function refusedSender(m: Request): unknown {
  switch (m.type) {
    case "menu-open":
    case "save-offer":
      return false;
    case "passkey-request":
      return {
        ok: false,
        result: {
          kind: "error",
          name: "SecurityError",
          message:
            "Credential Vault refused this request: the page has no origin of its own (a sandboxed document)",
        } satisfies PasskeyResult,
      };
    default:
      return null;
  }
}

/** Content scripts may ask only about their own frame; they can neither unlock nor read the session. */
async function fromContentScript(
  m: Request,
  sender: chrome.runtime.MessageSender,
): Promise<unknown> {
  // The page is the origin the browser reports for the asking document; its URL speaks for it only when the two agree.
  if (!senderOrigin(sender, (m as { origin?: unknown }).origin)) return refusedSender(m);
  const crossOriginFrame =
    sender.frameId !== 0 && originOf(sender.url) !== originOf(sender.tab?.url);
  const page = {
    pageUrl: sender.url,
    crossOriginFrame,
    tabId: sender.tab?.id,
    frameId: sender.frameId,
    documentId: sender.documentId,
  };
  switch (m.type) {
    case "menu-open":
      timeline.mark("menu-open");
      return toVault(m, page);
    case "menu-pressed":
      timeline.mark("menu-pressed");
      return toVault(m, page);
    case "save-offer":
      return sender.frameId === 0 ? inTabOrder(page.tabId, () => toVault(m, page)) : false;
    case "submitted":
      return crossOriginFrame ? null : inTabOrder(page.tabId, () => toVault(m, page));
    case "passkey-request": {
      const reply = await toVault<{ ok: boolean }>(m, page);
      if (reply.ok && page.tabId !== undefined && page.documentId) {
        passkeyAsks.set(m.nonce, {
          kind: "passkey",
          tabId: page.tabId,
          frameId: page.frameId ?? 0,
          documentId: page.documentId,
        });
        // A page that asks and never answers cannot grow this: the oldest goes.
        if (passkeyAsks.size > 32) passkeyAsks.delete(passkeyAsks.keys().next().value!);
      }
      return reply;
    }
    default:
      return null;
  }
}

chrome.runtime.onMessage.addListener((m: Request & { target?: string }, sender, reply) => {
  if (m?.target === "offscreen" || sender.id !== chrome.runtime.id) return false;
  // The popup may be open in a tab too: what tells an extension page from a content script is its URL.
  const ownPage = sender.url?.startsWith(chrome.runtime.getURL("")) ?? false;
  const frame = ownPage && new URL(sender.url!).pathname === "/menu.html";
  (frame
    ? fromFrame(m, sender)
    : ownPage
      ? fromExtensionPage(m)
      : fromContentScript(m, sender)
  ).then(reply, (e: unknown) => reply({ error: e instanceof Error ? e.message : String(e) }));
  return true;
});

// A locked screen locks the vault at once.
chrome.idle.onStateChanged.addListener((s) => {
  if (s === "locked") void toVault({ type: "lock" });
});

// The extension's device key (device.ts) is made here, once, when it is installed or the browser
// starts; the offscreen vault signs with the stored pair.
chrome.runtime.onInstalled.addListener(() => void deviceKeyPair().catch(() => undefined));
chrome.runtime.onStartup.addListener(() => void deviceKeyPair().catch(() => undefined));
