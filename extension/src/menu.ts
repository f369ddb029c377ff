/**
 * The extension frame a content script opens in a page (menu.html, web-accessible): the fill menu
 * beside a login field, the insecure-page confirmation, or the save offer. It runs in the
 * extension's origin, so the page can neither read it nor script it. A control acts only on the
 * person's own input (a trusted click; Enter or Space only after the person moved into the menu
 * with the arrow keys), only after the control was shown for MIN_SHOWN_MS, and only while
 * IntersectionObserver v2 (where Chromium has it) says the frame is fully visible; the content
 * script then judges it from outside as well before the service worker releases anything.
 */
import type {
  FrameAttached,
  FrameView,
  MatchItem,
  PasskeyChoice,
  PasskeyView,
  PickReply,
  Request,
  SaveOffer,
} from "./messages";
import { warningParts } from "./warning";
import { MIN_SHOWN_MS } from "./visibility";

const send = <T>(m: Request): Promise<T> => chrome.runtime.sendMessage(m);
const box = document.getElementById("box")!;
const body = document.body;

let nonce: string | null = null;
/** When the controls now on screen were drawn: a new control (the confirmation) starts again. */
let shownAt = Infinity;
let keyboardArmed = false;
/** IntersectionObserver v2: whether Chromium reports visibility here, and since when it holds. */
const seen = { supported: true, visibleSince: null as number | null };

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  cls: string,
  text = "",
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  e.className = cls;
  e.textContent = text;
  return e;
}

/** Tells the content script the height to give the frame, or that it is done. */
const toPage = (m: { type: "size"; height: number } | { type: "close" }) =>
  parent.postMessage(m, "*");

function draw(...children: HTMLElement[]) {
  box.replaceChildren(...children);
  shownAt = performance.now();
  // When it was drawn, on the wall clock, for bench/passkeys.mjs (inside this extension frame only).
  body.dataset.shownAt = String(performance.timeOrigin + shownAt);
  keyboardArmed = false;
  delete body.dataset.armed;
  toPage({ type: "size", height: box.getBoundingClientRect().height });
  setTimeout(armed, MIN_SHOWN_MS);
}

/** Why a click does not count, or null when it does. */
function refusal(e: MouseEvent): string | null {
  if (!e.isTrusted) return "untrusted";
  if (e.detail === 0 && !keyboardArmed) return "keyboard";
  const now = performance.now();
  if (now - shownAt < MIN_SHOWN_MS) return "too-soon";
  if (seen.supported && (seen.visibleSince === null || now - seen.visibleSince < MIN_SHOWN_MS))
    return "not-visible";
  return null;
}

function armed() {
  const now = performance.now();
  const ok =
    now - shownAt >= MIN_SHOWN_MS &&
    (!seen.supported || (seen.visibleSince !== null && now - seen.visibleSince >= MIN_SHOWN_MS));
  if (ok) body.dataset.armed = "true";
  else delete body.dataset.armed;
}

function refuse(
  reason: string,
  note = "Not done: the menu was hidden, covered or had only just appeared. Try again.",
) {
  body.dataset.refused = reason;
  box.querySelector(".note")?.remove();
  box.append(el("div", "note", note));
  toPage({ type: "size", height: box.getBoundingClientRect().height });
}

/** A control that runs `act` on the person's own click only. */
function control(b: HTMLButtonElement, act: () => Promise<void>) {
  b.addEventListener("click", (e) => {
    const why = refusal(e);
    if (why) return refuse(why);
    void act();
  });
  return b;
}

async function pick(item: MatchItem, confirmed: boolean) {
  const reply = await send<PickReply>({
    type: "frame-pick",
    nonce: nonce!,
    id: item.id,
    confirmed,
  });
  if (reply.ok) {
    body.dataset.state = "filled";
    if (!reply.warning) return toPage({ type: "close" });
    // Filled, and the person is told why this password should change; nothing here releases anything.
    const { kinds, text, link } = warningParts(reply.warning);
    body.dataset.warning = kinds;
    const ok = el("button", "primary", "OK");
    ok.addEventListener("click", () => toPage({ type: "close" }));
    const row = el("div", "row");
    row.append(ok);
    box.setAttribute("role", "alertdialog");
    return draw(el("div", "warn", text), link, row);
  }
  if (reply.reason === "confirm-insecure") {
    const yes = control(el("button", "confirm", "Fill anyway"), () => pick(item, true));
    yes.setAttribute("role", "menuitem");
    return draw(
      el(
        "div",
        "warn",
        "This page is not secure (http) but the sign-in was saved for https. Fill anyway?",
      ),
      yes,
    );
  }
  refuse(
    reply.reason,
    reply.reason === "navigated"
      ? "Not filled: the page changed."
      : "Not filled: the menu was hidden, covered or had only just appeared. Try again.",
  );
}

function itemButton(item: MatchItem): HTMLButtonElement {
  const b = control(el("button", "item"), () => pick(item, false));
  b.setAttribute("role", "menuitem");
  b.append(el("div", "name", item.name), el("div", "user", item.username || "(no username)"));
  return b;
}

function showFill(view: Extract<FrameView, { kind: "fill" }>) {
  const r = view.reply;
  const parts: HTMLElement[] = [];
  if (r.locked)
    parts.push(el("div", "title", "Credential Vault is locked: open the extension to unlock"));
  else if (r.twoFactorRequired)
    parts.push(
      el("div", "title", "Confirm your sign-in: open the extension and enter your two-factor code"),
    );
  else {
    parts.push(
      el(
        "div",
        "title",
        r.items.length
          ? `Fill from Credential Vault${r.source === "cache" ? " (offline)" : ""}`
          : "No saved sign-in for this site",
      ),
    );
    for (const item of r.items) parts.push(itemButton(item));
  }
  box.setAttribute("role", "menu");
  box.setAttribute("aria-label", "Credential Vault");
  body.dataset.count = String(r.locked ? 0 : r.items.length);
  draw(...parts);
}

function showSave(offer: SaveOffer) {
  box.setAttribute("role", "dialog");
  box.setAttribute("aria-label", "Save to Credential Vault");
  const answer = (accept: boolean) => async () => {
    const { saved } = await send<{ saved: boolean; refused?: string }>({
      type: "frame-save",
      nonce: nonce!,
      accept,
    });
    if (accept && !saved)
      return refuse(
        "not-visible",
        "Not saved: the offer was hidden, covered or had only just appeared. Try again.",
      );
    body.dataset.state = saved ? "saved" : "dismissed";
    box.replaceChildren(el("div", "title", saved ? "Saved in Credential Vault" : "Not saved"));
    setTimeout(() => toPage({ type: "close" }), 2500);
  };
  const row = el("div", "row");
  row.append(
    control(el("button", "primary", offer.kind === "save" ? "Save" : "Update"), answer(true)),
    control(el("button", "", "Not now"), answer(false)),
  );
  draw(
    el(
      "div",
      "title",
      offer.kind === "save"
        ? `Save the sign-in for ${offer.host} as ${offer.username}?`
        : `Update the password of ${offer.username} on ${offer.host}?`,
    ),
    row,
  );
}

/**
 * A page's passkey request: sign in with one of the vault's passkeys for the site, or save a new
 * one (in a new entry or one of the site's), or let the browser's own authenticator answer.
 */
function showPasskey(view: PasskeyView) {
  box.setAttribute("role", "dialog");
  box.setAttribute("aria-label", "Passkey – Credential Vault");
  const choose = (choice: PasskeyChoice) => async () => {
    const reply = await send<PickReply>({ type: "frame-passkey", nonce: nonce!, choice });
    if (!reply.ok)
      return refuse(
        reply.reason,
        reply.reason === "navigated"
          ? "Not done: the page changed."
          : "Not done: this box was hidden, covered or had only just appeared. Try again.",
      );
    body.dataset.state = typeof choice === "string" ? choice : "answered";
    toPage({ type: "close" });
  };
  const button = (text: string, choice: PasskeyChoice, cls = "") => {
    const b = control(el("button", cls, text), choose(choice));
    b.setAttribute("role", "menuitem");
    return b;
  };
  const parts: HTMLElement[] = [];
  if (view.locked)
    parts.push(
      el(
        "div",
        "title",
        `${view.rpId} asks for a passkey. Credential Vault is locked: unlock it in the extension and try again.`,
      ),
    );
  else if (view.op === "get") {
    const accounts = view.accounts ?? [];
    parts.push(
      el(
        "div",
        "title",
        accounts.length
          ? `Sign in to ${view.rpId} with a passkey`
          : `No passkey for ${view.rpId} in Credential Vault`,
      ),
    );
    for (const a of accounts) {
      const b = button("", { use: a.credentialId }, "item");
      b.append(el("div", "name", a.userName || "(no user name)"), el("div", "user", a.entry));
      parts.push(b);
    }
  } else {
    parts.push(
      el("div", "title", `Save a passkey for ${view.user || "this account"} on ${view.rpId}?`),
    );
    parts.push(button("Save in a new entry", { save: "new" }, "primary"));
    for (const e of view.entries ?? [])
      parts.push(
        button(`Add to ${e.name}${e.username ? ` (${e.username})` : ""}`, { save: e.id }, "item"),
      );
  }
  const row = el("div", "row");
  row.append(button("Use the browser's own", "fallback"), button("Cancel", "cancel"));
  parts.push(row);
  body.dataset.count = String(view.accounts?.length ?? 0);
  draw(...parts);
}

// Arrow keys move through the controls; only then do Enter and Space act (a page that moves focus
// into this frame while the person types gets no Enter from them that counts).
addEventListener("keydown", (e) => {
  if (!e.isTrusted || (e.key !== "ArrowDown" && e.key !== "ArrowUp")) return;
  const buttons = [...box.querySelectorAll("button")];
  if (!buttons.length) return;
  const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
  const next =
    e.key === "ArrowDown" ? (at + 1) % buttons.length : (at - 1 + buttons.length) % buttons.length;
  buttons[next]!.focus();
  keyboardArmed = true;
  e.preventDefault();
});

const observer = new IntersectionObserver(
  (entries) => {
    for (const entry of entries) {
      const visible = (entry as IntersectionObserverEntry & { isVisible?: boolean }).isVisible;
      if (visible === undefined) seen.supported = false;
      else if (visible && entry.intersectionRatio >= 0.99) seen.visibleSince ??= entry.time;
      else seen.visibleSince = null;
    }
    body.dataset.seen = !seen.supported
      ? "unsupported"
      : seen.visibleSince === null
        ? "hidden"
        : "visible";
    armed();
    if (seen.visibleSince !== null) setTimeout(armed, MIN_SHOWN_MS);
  },
  // trackVisibility needs a delay of at least 100 ms (IntersectionObserver v2).
  { threshold: [0, 0.5, 0.99, 1], trackVisibility: true, delay: 100 } as IntersectionObserverInit,
);
observer.observe(box);

/** Tells the content script this frame's session is gone (the vault locked): it makes a new menu. */
const stale = () => parent.postMessage({ type: "stale" }, "*");

/** Attaches by nonce, one request per nonce offered (at most a few: a page can only post guesses). */
const attaching = new Map<string, Promise<FrameAttached>>();
let showing = false;

/**
 * The content script that created this frame posts its session's nonce, and `show` once the
 * person opened the menu. A frame made ahead attaches at once, out of sight, and holds nothing
 * until then: only at `show` does it ask for the page's matches and draw them.
 */
async function present(offered: string, show: boolean) {
  if (nonce !== null && offered !== nonce) return;
  if (show) body.dataset.toldAt ??= String(performance.timeOrigin + performance.now());
  if (nonce === null) {
    let attached = attaching.get(offered);
    if (!attached) {
      if (attaching.size >= 4) return;
      attached = send<FrameAttached>({ type: "frame-attach", nonce: offered });
      attaching.set(offered, attached);
    }
    const view = await attached;
    if (view.kind === "gone") return show ? stale() : undefined;
    if (nonce !== null && nonce !== offered) return;
    nonce = offered;
    // When this frame was bound to its session (made ahead, this is before any press): the bench's
    // "page load -> menu made ahead" figure.
    body.dataset.attachedAt ??= String(performance.timeOrigin + performance.now());
  }
  if (!show || showing) return;
  showing = true;
  // When the frame was told to show, and when its session was bound (the bench splits the click's cost with them).
  body.dataset.shownAt = String(performance.timeOrigin + performance.now());
  const view = await send<FrameView>({ type: "frame-show", nonce });
  if (view.kind === "gone") return stale();
  if (view.kind === "fill") showFill(view);
  else if (view.kind === "passkey") showPasskey(view);
  else showSave(view.offer);
  body.dataset.state =
    view.kind === "fill" ? "ready" : view.kind === "passkey" ? "asking" : "offered";
  // Who answered (server, synced copy, offline cache): the bench reports it with its figures.
  if (view.kind === "fill" && !view.reply.locked) body.dataset.source = view.reply.source;
  body.dataset.readyAt = String(performance.timeOrigin + performance.now());
}

addEventListener("message", (e) => {
  const m = e.data as { nonce?: unknown; show?: unknown };
  if (e.source !== parent || typeof m?.nonce !== "string") return;
  void present(m.nonce, m.show === true);
});
