import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A website that attacks the extension from inside its own pages (the hostile-page catalogue):
 * `?attack=<name>` adds a script that tries to make the extension fill or save without the person.
 * Every script records what it read from the page's fields in `window.__stolen` and how often it
 * tried in `window.__tries`, and every message the window received in `window.__heard`. The same server answers for every *.test name (loopback), so a page
 * can be the entry's own host, a subdomain, a sibling or another site. `/login?sandbox` is served
 * with a `sandbox` CSP (an opaque origin at the site's own address, as sites serve content they host
 * for others); `/sandboxed-frame` embeds the sign-in in a sandboxed iframe of the same address.
 */
const PRELUDE = `
window.__stolen = []; window.__tries = 0;
const everything = () => { const out = []; const walk = (root) => { for (const el of root.querySelectorAll("*")) { out.push(el); if (el.shadowRoot) walk(el.shadowRoot); } }; walk(document); return out; };
window.__heard = [];
addEventListener("message", (e) => __heard.push(JSON.stringify(e.data)));
const extensionHosts = () => [...document.documentElement.children].filter((e) => e !== document.head && e !== document.body && e.tagName === "DIV" && e.id !== "decoy");
// The menu the person sees (a menu made ahead stays inert until shown).
const extensionHost = () => extensionHosts().find((e) => !e.inert);
const madeAhead = () => extensionHosts().find((e) => e.inert);
setInterval(() => { for (const i of document.querySelectorAll("input")) if (i.value && !__stolen.includes(i.value)) __stolen.push(i.value); }, 20);
const whenShown = (fn) => { const seen = new WeakSet(); setInterval(() => { const h = extensionHost(); if (h && !seen.has(h)) { seen.add(h); fn(h); } }, 10); };
`;

const ATTACKS: Record<string, string> = {
  // Every button, menu item and link the page can reach (open shadow roots, frames' documents) is clicked, over and over.
  click: `setInterval(() => {
    __tries++;
    for (const el of everything()) {
      // The page's own sign-in form is left alone: the attack is on the extension's controls.
      if (el.matches("button, [role=menuitem], [role=button]") && !el.closest("form")) { el.click(); __tries++; }
      if (el instanceof HTMLIFrameElement) { try { for (const b of el.contentDocument.querySelectorAll("button")) { b.click(); __tries++; } } catch { __tries++; } }
    }
  }, 50);`,
  // Synthetic pointer and keyboard events at the extension's UI, and focus pulled into its frame.
  events: `setInterval(() => {
    const h = extensionHost(); if (!h) return;
    const r = h.getBoundingClientRect();
    for (const [x, y] of [[r.left + r.width / 2, r.top + r.height / 2], [r.left + 40, r.top + 45]]) {
      const t = document.elementFromPoint(x, y) || h;
      for (const type of ["pointerdown", "mousedown", "pointerup", "mouseup", "click"]) {
        const E = type.startsWith("pointer") ? PointerEvent : MouseEvent;
        t.dispatchEvent(new E(type, { bubbles: true, composed: true, cancelable: true, clientX: x, clientY: y, detail: 1, view: window }));
        __tries++;
      }
    }
    for (const key of ["ArrowDown", "Enter", " "]) for (const t of [h, document, document.activeElement]) { t && t.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true, composed: true })); __tries++; }
    for (let i = 0; i < frames.length; i++) { try { frames[i].focus(); __tries++; } catch {} }
    h.focus && h.focus();
  }, 50);`,
  opacity: `whenShown((h) => { h.style.setProperty("opacity", "0"); __tries++; });`,
  filter: `whenShown(() => { document.documentElement.style.filter = "opacity(0.01)"; __tries++; });`,
  // A decoy drawn over the UI that lets clicks through to it.
  overlay: `whenShown(() => {
    const d = document.createElement("div");
    d.id = "decoy";
    d.textContent = "Click here to claim your prize";
    d.style.cssText = "position:fixed;inset:0;background:#ffe000;z-index:2147483647;pointer-events:none;font-size:40px";
    document.documentElement.append(d); __tries++;
  });`,
  // Held there: the extension places its frame again whenever the frame's height changes.
  offscreen: `whenShown((h) => setInterval(() => { h.style.setProperty("left", "-250px"); __tries++; }, 5));`,
  clipped: `whenShown((h) => { h.style.setProperty("height", "44px"); h.style.setProperty("overflow", "hidden"); __tries++; });`,
  // The menu made ahead, while still hidden: brought on screen, opaque and clickable (through a
  // stylesheet only, so its host looks untouched; or also made not inert), removed, or moved.
  expose: `document.head.append(Object.assign(document.createElement("style"), { textContent: "html > div:not(#decoy) { position: fixed !important; left: 20px !important; top: 160px !important; opacity: 1 !important; pointer-events: auto !important; }" }));
    setInterval(() => { const h = madeAhead(); if (h) __tries++; }, 20);`,
  unhide: `setInterval(() => { const h = madeAhead(); if (!h) return; h.inert = false; h.removeAttribute("aria-hidden"); h.style.cssText = "position: fixed; left: 20px; top: 160px; z-index: 2147483647"; __tries++; }, 5);`,
  remove: `setInterval(() => { const h = madeAhead(); if (h) { h.remove(); __tries++; } }, 5);`,
  move: `setInterval(() => { const h = madeAhead(); if (h) { document.body.prepend(h); __tries++; } }, 5);`,
  // A decoy kept above whatever the extension adds, from the moment the menu is made ahead.
  cover: `setInterval(() => {
    if (!extensionHosts().length) return;
    let d = document.getElementById("decoy");
    if (!d) { d = document.createElement("div"); d.id = "decoy"; d.textContent = "Click here to claim your prize"; d.style.cssText = "position:fixed;inset:0;background:#ffe000;z-index:2147483647;pointer-events:none;font-size:40px"; }
    if (document.documentElement.lastElementChild !== d) { document.documentElement.append(d); __tries++; }
  }, 5);`,
};

export async function startHostileSite(): Promise<{ port: number; close(): Promise<void> }> {
  const body = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let data = "";
      req.on("data", (c) => (data += c));
      req.on("end", () => resolve(data));
    });
  const script = (attack: string | null) =>
    attack && ATTACKS[attack]
      ? `<script>${PRELUDE}${ATTACKS[attack]}</script>`
      : `<script>${PRELUDE}</script>`;
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const attack = url.searchParams.get("attack");
    const html = (s: string, status = 200, headers: Record<string, string> = {}) => {
      res.writeHead(status, {
        "content-type": "text/html; charset=utf-8",
        "cache-control": "no-store",
        ...headers,
      });
      res.end(s);
    };
    if (req.method === "GET" && url.pathname === "/login") {
      const to = url.searchParams.get("to");
      const action = to ? `/login?to=${encodeURIComponent(to)}` : "/login";
      html(
        `<!doctype html><html><head><title>Hostile login</title></head><body style="margin:0;padding:20px">
<h1>Sign in</h1>
<form method="post" action="${action.replace(/"/g, "&quot;")}">
<label>Username <input name="username" autocomplete="username"></label><br>
<label>Password <input name="password" type="password" autocomplete="current-password"></label><br>
<button type="submit">Sign in</button>
</form>${script(attack)}</body></html>`,
        200,
        url.searchParams.has("sandbox")
          ? { "content-security-policy": "sandbox allow-scripts allow-forms" }
          : {},
      );
    } else if (url.pathname === "/sandboxed-frame") {
      html(
        `<!doctype html><html><head><title>Sandboxed frame</title></head><body><iframe id="inner" sandbox="allow-scripts allow-forms" src="/login" style="width:600px;height:400px"></iframe></body></html>`,
      );
    } else if (req.method === "POST" && url.pathname === "/login") {
      await body(req);
      html("", 302, {
        location: url.searchParams.get("to") ?? `/account${attack ? `?attack=${attack}` : ""}`,
      });
    } else if (url.pathname === "/account") {
      html(
        `<!doctype html><html><head><title>Account</title></head><body><h1>Signed in</h1>${script(attack)}</body></html>`,
      );
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
