import type { Context } from "hono";
import type { AppEnv } from "../../http/types";
import { randomToken } from "../../lib/crypto";

type Target = { kind: "viewer"; token: string } | { kind: "owner"; id: string };

const SAFE = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * The live viewer. It holds no secret: it signs in with the user's own cookie, asks for a one-time
 * ticket (device trust applies, D11) and opens the WebSocket. It receives only JPEG frames and
 * status messages; the credentials stay sealed server-side and typed passwords stay masked in the
 * remote page (see browser.ts).
 */
export function viewerPage(c: Context<AppEnv>, target: Target): Response {
  const ref = target.kind === "viewer" ? target.token : target.id;
  const nonce = randomToken(16);
  const headers = {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    // The token is in the path: never leak it through Referer, framing or search engines.
    "referrer-policy": "no-referrer",
    "x-robots-tag": "noindex, nofollow",
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "content-security-policy": `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; img-src data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`,
  };
  if (!SAFE.test(ref))
    return new Response("Not found", {
      status: 404,
      headers: { ...headers, "content-type": "text/plain" },
    });
  const ticketPath =
    target.kind === "viewer"
      ? `/api/session-shares/view/${ref}/ticket`
      : `/api/session-shares/${ref}/ticket`;
  return c.body(page(nonce, ticketPath), 200, headers);
}

function page(nonce: string, ticketPath: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Shared session</title>
<style nonce="${nonce}">
body{margin:0;background:#111;color:#eee;font:14px system-ui,sans-serif}
header{display:flex;gap:1em;align-items:center;padding:.5em 1em;background:#222}
#screen{display:block;max-width:100%;margin:0 auto;outline:none;user-select:none}
#status{font-weight:600}
</style></head>
<body>
<header><span>Shared session</span><span id="status">connecting…</span><span id="mode"></span></header>
<img id="screen" alt="Live view of the shared session" tabindex="0" draggable="false">
<script nonce="${nonce}">
(async () => {
  const statusEl = document.getElementById("status");
  const modeEl = document.getElementById("mode");
  const screen = document.getElementById("screen");
  const say = (t) => { statusEl.textContent = t; };
  // The device fingerprint of the spec: SHA-256 of the signals joined with "|".
  async function fingerprint() {
    let gpu = "";
    try {
      const gl = document.createElement("canvas").getContext("webgl");
      const ext = gl && gl.getExtension("WEBGL_debug_renderer_info");
      gpu = ext ? gl.getParameter(ext.UNMASKED_RENDERER_WEBGL) : "";
    } catch {}
    const signals = [navigator.platform, navigator.language, navigator.hardwareConcurrency, window.screen.width + "x" + window.screen.height,
      window.screen.colorDepth, Intl.DateTimeFormat().resolvedOptions().timeZone, navigator.maxTouchPoints, gpu].join("|");
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(signals));
    return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  }
  try {
    const fp = await fingerprint();
    const csrf = await (await fetch("/api/auth/csrf-token", { credentials: "same-origin" })).json();
    const res = await fetch(${JSON.stringify(ticketPath)}, { method: "POST", credentials: "same-origin",
      headers: { "x-csrf-token": csrf.csrfToken, "x-device-fingerprint": fp } });
    const t = await res.json();
    if (!res.ok) { say(t.error || "unavailable"); return; }
    const full = t.accessType === "full";
    modeEl.textContent = full ? "full access" : "view only";
    const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + t.wsUrl);
    let size = { width: 1280, height: 800 };
    ws.onmessage = (e) => {
      const m = JSON.parse(e.data);
      if (m.type === "frame") { size = { width: m.width, height: m.height }; screen.src = "data:image/jpeg;base64," + m.data; }
      else if (m.type === "status") say(m.status);
    };
    ws.onclose = () => say("ended");
    if (!full) return;
    const send = (m) => { if (ws.readyState === 1) ws.send(JSON.stringify(m)); };
    const at = (e) => { const r = screen.getBoundingClientRect(); return { x: (e.clientX - r.left) * size.width / r.width, y: (e.clientY - r.top) * size.height / r.height }; };
    const buttons = ["left", "middle", "right"];
    screen.addEventListener("mousedown", (e) => { e.preventDefault(); screen.focus(); send({ type: "mouse", event: "mousePressed", button: buttons[e.button] || "left", ...at(e) }); });
    screen.addEventListener("mouseup", (e) => send({ type: "mouse", event: "mouseReleased", button: buttons[e.button] || "left", ...at(e) }));
    screen.addEventListener("wheel", (e) => { e.preventDefault(); send({ type: "mouse", event: "mouseWheel", deltaX: e.deltaX, deltaY: e.deltaY, ...at(e) }); }, { passive: false });
    const mods = (e) => (e.altKey ? 1 : 0) | (e.ctrlKey ? 2 : 0) | (e.metaKey ? 4 : 0) | (e.shiftKey ? 8 : 0);
    screen.addEventListener("keydown", (e) => {
      e.preventDefault();
      send({ type: "key", event: "keyDown", key: e.key, code: e.code, keyCode: e.keyCode, modifiers: mods(e), text: e.key.length === 1 ? e.key : e.key === "Enter" ? "\\r" : undefined });
    });
    screen.addEventListener("keyup", (e) => { e.preventDefault(); send({ type: "key", event: "keyUp", key: e.key, code: e.code, keyCode: e.keyCode, modifiers: mods(e) }); });
  } catch (err) { say("unavailable"); }
})();
</script></body></html>`;
}
