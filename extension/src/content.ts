/**
 * In every page and frame: finds sign-in forms and, when the person clicks into a login field (or
 * reaches it with Tab), opens the fill menu beside it; after a sign-in, on the same site's next
 * page, opens the save offer. Both are extension frames (frame.ts): the page can neither read nor
 * script them. This script never holds a name, username or password before a fill, and fills only
 * what the service worker sends to this very document after the person's choice in the frame.
 */
import { newNonce, openFrame, type OpenFrame } from "./frame";
import type { Credentials, FromContent, Request, ToContent } from "./messages";

const send = <T>(m: Request): Promise<T> =>
  chrome.runtime.sendMessage({ ...m, origin: self.origin } satisfies FromContent);

const visible = (el: HTMLElement) =>
  el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
const passwordFields = (scope: ParentNode = document) =>
  [...scope.querySelectorAll<HTMLInputElement>("input[type=password]")].filter(visible);
const OTP =
  'input[autocomplete="one-time-code"], input[name*="otp" i], input[id*="otp" i], input[name*="totp" i]';
const totpField = (scope: ParentNode = document) =>
  [...scope.querySelectorAll<HTMLInputElement>(OTP)].find(visible) ?? null;

/** The text field before the password field in its form: where sign-in forms put the username. */
function usernameFor(pw: HTMLInputElement): HTMLInputElement | null {
  const inputs = [...(pw.form ?? document).querySelectorAll<HTMLInputElement>("input")];
  for (let i = inputs.indexOf(pw) - 1; i >= 0; i--) {
    const el = inputs[i]!;
    if (["text", "email", "tel", ""].includes(el.type) && visible(el)) return el;
  }
  return null;
}

/** A field the fill menu opens for: a password, the username before it, or a one-time-code field. */
function isLoginField(t: EventTarget | null): t is HTMLInputElement {
  if (!(t instanceof HTMLInputElement) || !visible(t)) return false;
  if (t.type === "password" || t.matches(OTP)) return true;
  return passwordFields(t.form ?? document).some((pw) => usernameFor(pw) === t);
}

/** Sets a value the way typing does, so frameworks listening for input see it. */
function setValue(el: HTMLInputElement, value: string) {
  el.focus();
  Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")!.set!.call(el, value);
  el.dispatchEvent(new Event("input", { bubbles: true }));
  el.dispatchEvent(new Event("change", { bubbles: true }));
}

/** Fills the form of the field the menu was opened for (the page's first sign-in form for the popup). */
function fillWith(c: Credentials, anchor: HTMLInputElement | null) {
  const scope = anchor?.isConnected && anchor.form ? anchor.form : document;
  const pw = passwordFields(scope)[0] ?? passwordFields()[0];
  const user = pw ? usernameFor(pw) : null;
  if (user && c.username) setValue(user, c.username);
  if (pw) setValue(pw, c.password);
  const otp = totpField(scope) ?? totpField();
  if (otp && c.totp) setValue(otp, c.totp);
}

/**
 * A frame of another origin than the tab's page never fills. Known here at once, from the browser's
 * own cross-origin barrier (a page cannot make another origin's `location` readable), instead of
 * from a round trip to the service worker at load: that answer came late or never when the worker
 * was starting or stopping, and the frame stayed undecided. The service worker still decides from
 * `sender` on every request, so this check only ever refuses earlier, never allows.
 */
function crossOriginFrame(): boolean {
  if (window === window.top) return false;
  try {
    return window.top!.location.origin !== location.origin;
  } catch {
    return true;
  }
}
const refused = crossOriginFrame();

let current: (OpenFrame & { anchor: HTMLInputElement | null }) | null = null;
/** A fill menu made ahead, hidden and empty, waiting for the person's click into a login field; `opened`: its session exists in the vault. */
let spare: (OpenFrame & { opened: Promise<boolean> }) | null = null;
let lastTab = -Infinity;

/** The frame closed itself (after a fill, a save, "Not now"). */
const closed = (nonce: string) => {
  if (current?.nonce === nonce) current = null;
  prepareSoon();
};

function close() {
  current?.remove();
  current = null;
  prepareSoon();
}

/**
 * Makes the next fill menu ahead, as soon as this document has a login field: its session is
 * opened (nothing is looked up) and its frame loads hidden, so the person's click only shows it.
 * A page with no login field gets no frame.
 */
function prepare() {
  if (refused || spare || current) return;
  if (!passwordFields()[0] && !totpField()) return watchForLoginFields();
  fieldWatch?.disconnect();
  fieldWatch = null;
  const nonce = newNonce();
  const opened = send<boolean>({ type: "menu-open", nonce, ahead: true });
  const made: OpenFrame = openFrame(nonce, {
    anchor: null,
    hidden: true,
    session: opened,
    onClose: () => closed(nonce),
    onStale: () => {
      // The vault locked (and perhaps unlocked) since the menu was made: a fresh one, same field.
      const anchor = current?.nonce === nonce ? current.anchor : null;
      if (current?.nonce === nonce) current = null;
      if (anchor?.isConnected) openFresh(anchor);
    },
  });
  spare = { ...made, opened };
}
let preparing: ReturnType<typeof setTimeout> | undefined;
function prepareSoon() {
  clearTimeout(preparing);
  preparing = setTimeout(prepare, 0);
}

/** A menu made now, at the click: the path when none was made ahead (or the page tampered with it). */
function openFresh(anchor: HTMLInputElement) {
  const nonce = newNonce();
  current = {
    ...openFrame(nonce, {
      anchor,
      session: send<boolean>({ type: "menu-open", nonce }),
      onClose: () => closed(nonce),
    }),
    anchor,
  };
}

function openMenu(anchor: HTMLInputElement) {
  if (current?.anchor === anchor) return;
  current?.remove();
  current = null;
  if (refused) return;
  const ready = spare;
  spare = null;
  // A frame made ahead that the page has moved, restyled or removed is not used: it is replaced.
  if (ready?.intact()) {
    ready.show(anchor);
    current = { ...ready, anchor };
    // The vault starts the page's lookup now (once the session exists), while the press travels to
    // the frame and the frame loads or asks for what to draw; the answer goes to that frame only
    // (offscreen.ts `lookAhead`).
    void ready.opened
      .then((ok) => ok && send({ type: "menu-pressed", nonce: ready.nonce }))
      .catch(() => undefined);
  } else {
    ready?.remove();
    openFresh(anchor);
  }
}

// Only the person's own input opens the menu: a trusted press in a login field, or Tab into one.
// A page's focus() or dispatched events open nothing (and nothing the page does can pick from it).
document.addEventListener(
  "pointerdown",
  (e) => {
    if (!e.isTrusted) return;
    if (isLoginField(e.target)) openMenu(e.target);
    else if (current?.kind === "fill" && !current.contains(e.target)) close();
  },
  true,
);
document.addEventListener(
  "keydown",
  (e) => {
    if (!e.isTrusted) return;
    if (e.key === "Tab") lastTab = performance.now();
    if (e.key === "Escape" && current?.kind === "fill") close();
  },
  true,
);
document.addEventListener("focusin", (e) => {
  if (performance.now() - lastTab < 1000 && isLoginField(e.target)) openMenu(e.target);
});
// Typing in the field means the person is not picking from the menu: it goes out of the way.
document.addEventListener(
  "input",
  (e) => e.isTrusted && current?.kind === "fill" && e.target === current.anchor && close(),
  true,
);

document.addEventListener(
  "submit",
  (e) => {
    // A page's requestSubmit() is not a sign-in the person made.
    if (!e.isTrusted) return;
    const form = e.target as HTMLFormElement;
    const pw = [...form.querySelectorAll<HTMLInputElement>("input[type=password]")].find(
      (p) => p.value,
    );
    if (pw)
      void send({ type: "submitted", username: usernameFor(pw)?.value ?? "", password: pw.value });
  },
  true,
);

// Only the extension can send these (the browser delivers them to this document alone).
chrome.runtime.onMessage.addListener((m: ToContent, _sender, reply) => {
  if (m.type === "do-fill") {
    if (m.nonce !== undefined && (m.nonce !== current?.nonce || current.kind !== "fill"))
      return void reply(false);
    // The popup's fill is addressed to the tab's document by its URL: one its site sandboxed
    // (an opaque origin) is not that site, so it gets nothing (sender-origin.ts for the rest).
    if (self.origin === "null") return void reply(false);
    fillWith(m.credentials, current?.anchor ?? null);
    if (m.nonce !== undefined && !m.keep) close();
    reply(true);
  } else if (m.type === "frame-visible") {
    reply(current?.nonce === m.nonce ? current.seen() : { ok: false, reason: "closed" });
  } else if (m.type === "frame-close") {
    if (current?.nonce === m.nonce) close();
    reply(true);
  }
  return false;
});

async function start() {
  // Marked so a test can tell a refusal from a page the extension has not looked at yet.
  if (refused) document.documentElement.dataset.credentialVault = "refuse-frame";
  else if (window === window.top && !passwordFields()[0] && !totpField()) {
    // This tab's next page after a sign-in: the service worker decides whether it is the same site.
    const nonce = newNonce();
    const session = send<boolean>({ type: "save-offer", nonce });
    if (await session)
      current = {
        ...openFrame(nonce, { anchor: null, session, onClose: () => closed(nonce) }),
        anchor: null,
      };
  }
  afterLoad(prepare);
}

/**
 * Runs `then` once the page has loaded. An iframe added before the page's `load` holds that event
 * (and the tab's loading state) until the frame has loaded too, and the menu frame loads in the
 * extension's process, which during a first sync is busy with the pull: the page would finish
 * loading only after it. Made after `load`, the frame loads while the page is already usable, and
 * the person's press starts the vault's lookup whether or not the frame is ready yet
 * (`menu-pressed`). A page that keeps its `load` from coming (or from reaching this listener)
 * gets its menu made at the press instead, the path taken when nothing was made ahead.
 */
function afterLoad(then: () => void) {
  if (document.readyState === "complete") return then();
  const loaded = (e: Event) => {
    if (!e.isTrusted) return;
    removeEventListener("load", loaded);
    then();
  };
  addEventListener("load", loaded);
}

/**
 * A login form a page adds later (a sign-in dialog, a single-page app's route): looked for at most
 * every 250 ms while the DOM changes, until a menu has been made ahead.
 */
let fieldWatch: MutationObserver | null = null;
function watchForLoginFields() {
  if (fieldWatch) return;
  let pending = false;
  fieldWatch = new MutationObserver(() => {
    if (pending) return;
    pending = true;
    setTimeout(() => {
      pending = false;
      prepare();
    }, 250);
  });
  fieldWatch.observe(document.documentElement, {
    childList: true,
    subtree: true,
    attributes: true,
    attributeFilter: ["type", "style", "class", "hidden"],
  });
}

void start();
