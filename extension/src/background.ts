/**
 * The service worker: routes messages between the popup, content scripts and the offscreen vault,
 * stamping each with facts the sender cannot forge (the frame's URL and whether it is cross-origin,
 * from the browser's `sender`), the web app's origin and the session read from its cookie.
 */
import { authCookieAt, tokenClaims } from "../../client/src/session";
import type { Request, Status } from "./messages";

declare const __APP_ORIGIN__: string;

export type Forwarded = Request & { target: "offscreen"; appOrigin: string; token: string | null; autoLockMs: number; pageUrl?: string; crossOriginFrame?: boolean; tabId?: number };

const OFFSCREEN = "offscreen.html";
let creating: Promise<void> | null = null;
let offscreenOpen = false;
let cachedSettings: Promise<{ appOrigin: string; autoLockMs: number }> | null = null;

/** Read once per service-worker life and again after any change: a fill should not wait on storage. */
function settings() {
  cachedSettings ??= chrome.storage.local.get(["appOrigin", "autoLockSeconds"]).then((s: { appOrigin?: string; autoLockSeconds?: number }) => ({
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
  const open = await chrome.runtime.getContexts({ contextTypes: [chrome.runtime.ContextType.OFFSCREEN_DOCUMENT] });
  offscreenOpen = open.length > 0;
  if (offscreenOpen) return;
  creating ??= chrome.offscreen
    .createDocument({ url: OFFSCREEN, reasons: [chrome.offscreen.Reason.WORKERS], justification: "Holds the unlocked vault keys in memory only" })
    .finally(() => (creating = null));
  await creating;
  offscreenOpen = true;
}

async function toVault<T>(m: Request, extra: Partial<Forwarded> = {}): Promise<T> {
  const [, { appOrigin, autoLockMs }] = await Promise.all([ensureOffscreen(), settings()]);
  const forwarded = { ...m, ...extra, target: "offscreen", appOrigin, autoLockMs, token: await sessionToken(appOrigin) } as Forwarded;
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
  if (reply && typeof reply === "object" && "error" in reply && reply.error) throw new Error(reply.error);
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
  const vault = await toVault<{ unlocked: boolean; pending: number; lastSync: string | null; cached: number }>({ type: "status" });
  return { signedIn, email, appOrigin, ...vault, unlocked: signedIn && vault.unlocked };
}

async function fromExtensionPage(m: Request): Promise<unknown> {
  switch (m.type) {
    case "token":
      return sessionToken((await settings()).appOrigin);
    case "status":
      return status();
    case "unlock":
    case "lock":
      return toVault(m);
    case "match":
      return toVault(m, { pageUrl: m.url, crossOriginFrame: false });
    case "fill-tab": {
      const tab = await chrome.tabs.get(m.tabId);
      const reply = await toVault<{ ok: boolean }>({ type: "fill", id: m.id, confirmed: m.confirmed }, { pageUrl: tab.url, crossOriginFrame: false });
      if (reply.ok) await chrome.tabs.sendMessage(m.tabId, { type: "do-fill", ...reply }, { frameId: 0 });
      return reply;
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
  void next.finally(() => tabChains.get(tabId) === next && tabChains.delete(tabId)).catch(() => undefined);
  return next;
}

/** Content scripts may ask only about their own frame; they can neither unlock nor read the session. */
async function fromContentScript(m: Request, sender: chrome.runtime.MessageSender): Promise<unknown> {
  const crossOriginFrame = sender.frameId !== 0 && originOf(sender.url) !== originOf(sender.tab?.url);
  const page = { pageUrl: sender.url, crossOriginFrame, tabId: sender.tab?.id };
  switch (m.type) {
    case "match":
    case "fill":
      return toVault(m, page);
    case "save-offer":
    case "save-answer":
      return inTabOrder(page.tabId, () => toVault(m, page));
    case "submitted":
      return crossOriginFrame ? null : inTabOrder(page.tabId, () => toVault(m, page));
    default:
      return null;
  }
}

chrome.runtime.onMessage.addListener((m: Request & { target?: string }, sender, reply) => {
  if (m?.target === "offscreen" || sender.id !== chrome.runtime.id) return false;
  // The popup may be open in a tab too: what tells an extension page from a content script is its URL.
  const ownPage = sender.url?.startsWith(chrome.runtime.getURL("")) ?? false;
  (ownPage ? fromExtensionPage(m) : fromContentScript(m, sender)).then(reply, (e: unknown) => reply({ error: e instanceof Error ? e.message : String(e) }));
  return true;
});

// A locked screen locks the vault at once.
chrome.idle.onStateChanged.addListener((s) => {
  if (s === "locked") void toVault({ type: "lock" });
});
