/**
 * The content script's side of an extension frame (menu.html): an iframe of the extension's origin
 * in a closed shadow root, so the page can neither script into it (the origin boundary) nor reach
 * the iframe element. The frame learns its session's nonce by postMessage to the extension's
 * origin only. While open it is judged for visibility every CHECK_EVERY_MS (visibility.ts).
 */
import { judge, VisibilityWatch, type Seen } from "./visibility";

export type OpenFrame = {
  nonce: string;
  kind: "fill" | "save";
  seen(): Seen;
  contains(t: EventTarget | null): boolean;
  remove(): void;
};

const WIDTH = 300;
const GAP = 4;

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
  Object.assign(host.style, { position: "absolute", top: `${top + scrollY}px`, left: `${left + scrollX}px` });
}

export function openFrame(nonce: string, { anchor, onClose }: { anchor: HTMLInputElement | null; onClose: () => void }): OpenFrame {
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
  place(host, anchor, size.height);
  document.documentElement.append(host);

  const extensionOrigin = new URL(chrome.runtime.getURL("")).origin;
  let told = false;
  frame.addEventListener("load", () => {
    // To the extension's origin only: a frame the page navigated elsewhere never receives it.
    if (!told) frame.contentWindow?.postMessage({ nonce }, extensionOrigin);
    told = true;
  });
  const onMessage = (e: MessageEvent) => {
    if (e.source !== frame.contentWindow || e.origin !== extensionOrigin) return;
    const m = e.data as { type?: string; height?: number };
    if (m.type === "size" && typeof m.height === "number") {
      size.height = Math.min(Math.max(Math.ceil(m.height), 40), 420);
      frame.style.height = `${size.height}px`;
      place(host, anchor, size.height);
    } else if (m.type === "close") {
      out.remove();
      onClose();
    }
  };
  addEventListener("message", onMessage);
  const watch = new VisibilityWatch((deep) => judge(frame, root, size, deep));
  const out: OpenFrame = {
    nonce,
    kind: anchor ? "fill" : "save",
    seen: () => watch.verdict(),
    contains: (t) => t === host,
    remove() {
      watch.stop();
      removeEventListener("message", onMessage);
      host.remove();
    },
  };
  return out;
}
