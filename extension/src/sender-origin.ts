/** Whose request the service worker is answering: the browser's word, not the page's. */

/**
 * The asking document's origin as the browser reports it (chrome.runtime.MessageSender `origin`),
 * or null to refuse it: none reported; opaque ("null": a sandboxed frame, or a page served with a
 * `sandbox` CSP, which its site put outside its own origin, as sites do for content they host for
 * others); not the origin of the frame's URL, on which fills and passkeys are decided; or not the
 * origin the content script read in its document (`claimed`, window.origin).
 */
export function senderOrigin(
  sender: { origin?: string; url?: string },
  claimed: unknown,
): string | null {
  const origin = sender.origin;
  if (!origin || origin === "null" || claimed !== origin) return null;
  try {
    return new URL(sender.url ?? "").origin === origin ? origin : null;
  } catch {
    return null;
  }
}
