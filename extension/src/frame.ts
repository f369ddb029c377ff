/**
 * The content script's side of an extension frame (menu.html): an iframe of the extension's origin
 * in a closed shadow root, so the page can neither script into it (the origin boundary) nor reach
 * the iframe element. The frame learns its session's nonce by postMessage to the extension's
 * origin only. While shown it is judged for visibility every CHECK_EVERY_MS (visibility.ts).
 *
 * A fill menu can be made ahead (`hidden`), as soon as the page has a login field: the frame then
 * loads and binds its session out of sight, inert and empty, and `show` at the person's click
 * places it and tells it to fetch and draw its matches. Until then it holds nothing.
 */
import { judge, VisibilityWatch, type Seen } from "./visibility";

export type OpenFrame = {
  nonce: string;
  kind: "fill" | "save";
  seen(): Seen;
  contains(t: EventTarget | null): boolean;
  /** A frame made ahead: whether the page has left its host exactly as the extension made it. */
  intact(): boolean;
  /** Places a frame made ahead beside `anchor` (a passkey prompt: at the top right), makes it visible and lets it draw. */
  show(anchor: HTMLInputElement | null): void;
  remove(): void;
};

/** A session's nonce: 128 random bits (crypto.randomUUID needs a secure context, and http pages are not). */
export function newNonce(): string {
  const h = [...crypto.getRandomValues(new Uint8Array(16))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const WIDTH = 300;
const GAP = 4;
/** Out of view, transparent, not hit-testable, out of the tab order (inert): a frame made ahead. */
const HIDDEN = "position: fixed; top: 0px; left: -10000px; opacity: 0; pointer-events: none;";

/**
 * Beside the field it fills (below it, or above when there is no room below), never over it; the
 * save offer at the top right of the window.
 */
function place(host: HTMLElement, anchor: HTMLInputElement | null, height: number) {
  if (!anchor) {
    Object.assign(host.style, { position: "fixed", top: "12px", right: "12px", left: "auto" });
    return;
  }
  const r = anchor.getBoundingClientRect();
  const below = r.bottom + GAP + height <= innerHeight || r.top - GAP - height < 0;
  const top = below ? r.bottom + GAP : r.top - GAP - height;
  const left = Math.max(0, Math.min(r.left, innerWidth - WIDTH));
  Object.assign(host.style, {
    position: "absolute",
    top: `${top + scrollY}px`,
    left: `${left + scrollX}px`,
  });
}

type Options = {
  /** Where the menu goes; null for the save offer (and for a fill menu made ahead, until `show`). */
  anchor: HTMLInputElement | null;
  /** The session exists in the vault once this resolves true; the frame gets its nonce only then. */
  session: Promise<boolean>;
  hidden?: boolean;
  onClose: () => void;
  /** The frame's session is gone (the vault locked since it was made ahead). */
  onStale?: () => void;
};

export function openFrame(
  nonce: string,
  { anchor, session, hidden = false, onClose, onStale }: Options,
): OpenFrame {
  const host = document.createElement("div");
  const root = host.attachShadow({ mode: "closed" });
  const style = document.createElement("style");
  style.textContent = `:host { display: block !important; position: absolute; z-index: 2147483647 !important; margin: 0; padding: 0; }
iframe { all: initial; display: block; border: 0; width: ${WIDTH}px; height: 60px; color-scheme: normal; border-radius: 8px; box-shadow: 0 6px 20px rgba(0,0,0,.18); }`;
  const frame = document.createElement("iframe");
  frame.src = chrome.runtime.getURL("menu.html");
  frame.title = "Credential Vault";
  root.append(style, frame);
  const size = { width: WIDTH, height: 60 };
  let hiddenStyle: string | null = null;
  if (hidden) {
    host.style.cssText = HIDDEN;
    host.inert = true;
    host.setAttribute("aria-hidden", "true");
    hiddenStyle = host.getAttribute("style");
  } else place(host, anchor, size.height);
  document.documentElement.append(host);

  const extensionOrigin = new URL(chrome.runtime.getURL("")).origin;
  let shown = !hidden;
  let loaded = false;
  let bound = false;
  /** The nonce, and whether to draw, to the frame's extension document only (never to a page that navigated it). */
  const tell = () => {
    if (loaded && bound) frame.contentWindow?.postMessage({ nonce, show: shown }, extensionOrigin);
  };
  frame.addEventListener("load", () => {
    // Only the first document: a frame the page reloaded or moved (which reloads it) learns nothing.
    if (loaded) return;
    loaded = true;
    tell();
  });
  // No session (the vault refused one): the frame goes, and its content script forgets it.
  const refusedSession = () => {
    out.remove();
    onClose();
  };
  void session.then((ok) => {
    if (!ok) return refusedSession();
    bound = true;
    tell();
  }, refusedSession);
  const onMessage = (e: MessageEvent) => {
    if (e.source !== frame.contentWindow || e.origin !== extensionOrigin) return;
    const m = e.data as { type?: string; height?: number };
    if (m.type === "size" && typeof m.height === "number" && shown) {
      size.height = Math.min(Math.max(Math.ceil(m.height), 40), 420);
      frame.style.height = `${size.height}px`;
      place(host, anchor, size.height);
    } else if (m.type === "close") {
      out.remove();
      onClose();
    } else if (m.type === "stale" && shown) {
      out.remove();
      (onStale ?? onClose)();
    }
  };
  addEventListener("message", onMessage);
  let watch = hidden ? null : new VisibilityWatch((deep) => judge(frame, root, size, deep));
  const out: OpenFrame = {
    nonce,
    kind: anchor || hidden ? "fill" : "save",
    seen: () => watch?.verdict() ?? { ok: false, reason: "hidden" },
    contains: (t) => t === host,
    intact: () =>
      host.parentElement === document.documentElement &&
      host.getAttribute("style") === hiddenStyle &&
      host.inert &&
      host.attributes.length === 3,
    show(at) {
      if (shown) return;
      shown = true;
      anchor = at;
      host.removeAttribute("style");
      host.removeAttribute("aria-hidden");
      host.inert = false;
      place(host, anchor, size.height);
      // Judged from now: "visible since" starts at the person's click, never while it was hidden.
      watch = new VisibilityWatch((deep) => judge(frame, root, size, deep));
      tell();
    },
    remove() {
      watch?.stop();
      removeEventListener("message", onMessage);
      host.remove();
    },
  };
  return out;
}
