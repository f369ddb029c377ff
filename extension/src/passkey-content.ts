/**
 * The extension's side of a page's passkey request (passkey-page.ts posts it): hands it to the
 * vault, which reads the page's origin from the browser, and opens the extension's frame where the
 * person answers (frame.ts: an extension-origin iframe in a closed shadow root, judged visible
 * before anything is released). The answer the vault sends back to this document goes to the page.
 */
import { newNonce, openFrame, type OpenFrame } from "./frame";
import type { FromContent, PasskeyRequest, PasskeyResult, Request, ToContent } from "./messages";

const TAG = "credential-vault-passkey";
const send = <T>(m: Request): Promise<T> =>
  chrome.runtime.sendMessage({ ...m, origin: self.origin } satisfies FromContent);

/** Open requests of this document, by nonce: the page's id for the answer, and the frame. */
const open = new Map<string, { id: string; frame: OpenFrame }>();

function answer(nonce: string, result: PasskeyResult) {
  const r = open.get(nonce);
  if (!r) return;
  open.delete(nonce);
  r.frame.remove();
  window.postMessage({ [TAG]: "answer", id: r.id, result }, location.origin);
}

async function request(id: string, req: PasskeyRequest) {
  // One request at a time per document, as the browser's own dialog: a newer one replaces an older one.
  for (const nonce of [...open.keys()])
    answer(nonce, {
      kind: "error",
      name: "NotAllowedError",
      message: "Replaced by a newer request",
    });
  const nonce = newNonce();
  const asked = send<{ ok: true } | { ok: false; result: PasskeyResult }>({
    type: "passkey-request",
    nonce,
    request: req,
  }).catch(() => ({ ok: false, result: { kind: "fallback" } }) as const);
  // The frame is made at once, out of sight and inert, and loads while the vault checks the
  // request; it is shown (and judged visible from then) once the vault holds the request.
  const frame = openFrame(nonce, {
    anchor: null,
    hidden: true,
    session: asked.then((r) => r.ok),
    // The frame closed without an answer (the page removed it, the session went).
    onClose: () =>
      answer(nonce, { kind: "error", name: "NotAllowedError", message: "The request was closed" }),
  });
  open.set(nonce, { id, frame });
  const reply = await asked;
  if (!open.has(nonce)) return;
  if (!reply.ok) return answer(nonce, reply.result);
  frame.show(null);
  document.documentElement.dataset.credentialVaultPasskey = "asking";
}

window.addEventListener("message", (e: MessageEvent) => {
  const m = e.data as { [TAG]?: string; id?: unknown; request?: PasskeyRequest };
  if (e.source !== window || typeof m?.id !== "string") return;
  if (m[TAG] === "request" && m.request && (m.request.op === "create" || m.request.op === "get"))
    void request(m.id, m.request);
  if (m[TAG] === "abort")
    for (const [nonce, r] of open)
      if (r.id === m.id)
        answer(nonce, { kind: "error", name: "NotAllowedError", message: "Aborted" });
});

// Only the extension can send these (the browser delivers them to this document alone).
chrome.runtime.onMessage.addListener((m: ToContent, _sender, reply) => {
  if (m.type === "passkey-visible") {
    const frame = open.get(m.nonce)?.frame;
    reply(frame ? frame.seen() : { ok: false, reason: "closed" });
  } else if (m.type === "passkey-result") {
    const known = open.has(m.nonce);
    answer(m.nonce, m.result);
    reply(known);
  }
  return false;
});
