/**
 * In every page and frame: finds sign-in forms, offers the vault's matches in an inline menu beside
 * the field, fills what the user picks, and after a sign-in offers to save or update it. The page
 * never sees a password until the user picks an entry; the menu lives in a shadow root.
 */
import type { Credentials, FillReply, MatchItem, MatchReply, Request, SaveOffer } from "./messages";

const send = <T>(m: Request): Promise<T> => chrome.runtime.sendMessage(m);
const started = performance.now();

const visible = (el: HTMLElement) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
const passwordFields = () => [...document.querySelectorAll<HTMLInputElement>("input[type=password]")].filter(visible);
const totpField = () =>
  [...document.querySelectorAll<HTMLInputElement>('input[autocomplete="one-time-code"], input[name*="otp" i], input[id*="otp" i], input[name*="totp" i]')].find(visible) ?? null;

/** The text field before the password field in its form: where sign-in forms put the username. */
function usernameFor(pw: HTMLInputElement): HTMLInputElement | null {
  const inputs = [...(pw.form ?? document).querySelectorAll<HTMLInputElement>("input")];
  for (let i = inputs.indexOf(pw) - 1; i >= 0; i--) {
    const el = inputs[i]!;
    if (["text", "email", "tel", ""].includes(el.type) && visible(el)) return el;
  }
  return null;
}

/** Sets a value the way typing does, so frameworks listening for input see it. */
function setValue(el: HTMLInputElement, value: string) {
  el.focus();
  Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")!.set!.call(el, value);
  el.dispatchEvent(new Event("input", { bubbles: true }));
  el.dispatchEvent(new Event("change", { bubbles: true }));
}

function fillWith(c: Credentials) {
  const pw = passwordFields()[0];
  const user = pw ? usernameFor(pw) : null;
  if (user && c.username) setValue(user, c.username);
  if (pw) setValue(pw, c.password);
  const otp = totpField();
  if (otp && c.totp) setValue(otp, c.totp);
}

const STYLE = `
:host { all: initial; position: absolute; z-index: 2147483647; font: 14px system-ui, sans-serif; }
.box { background: #fff; color: #1a1a1a; border: 1px solid #c9ced6; border-radius: 8px; box-shadow: 0 6px 20px rgba(0,0,0,.18); min-width: 260px; padding: 4px; }
.title { font-size: 12px; color: #5b6270; padding: 6px 8px; }
button { all: unset; display: block; box-sizing: border-box; width: 100%; padding: 8px; border-radius: 6px; cursor: pointer; }
button:hover, button:focus { background: #eef3ff; }
.name { font-weight: 600; } .user { color: #5b6270; font-size: 12px; }
.warn { color: #8a4b00; padding: 6px 8px; font-size: 12px; }
.bar { position: fixed; top: 12px; right: 12px; } .row { display: flex; gap: 4px; } .row button { text-align: center; background: #f1f3f6; }
.row button.primary { background: #2454d6; color: #fff; }`;

function shadowHost(id: string): { host: HTMLElement; root: ShadowRoot } {
  document.getElementById(id)?.remove();
  const host = document.createElement("div");
  host.id = id;
  const root = host.attachShadow({ mode: "open" });
  root.innerHTML = `<style>${STYLE}</style>`;
  document.documentElement.append(host);
  return { host, root };
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls: string, text = ""): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  e.className = cls;
  e.textContent = text;
  return e;
}

function showMenu(anchor: HTMLInputElement, reply: MatchReply) {
  const { host, root } = shadowHost("credential-vault-menu");
  const r = anchor.getBoundingClientRect();
  host.style.left = `${r.left + scrollX}px`;
  host.style.top = `${r.bottom + scrollY + 4}px`;
  const box = el("div", "box");
  box.setAttribute("role", "menu");
  box.setAttribute("aria-label", "Credential Vault");
  root.append(box);
  if (reply.locked) {
    box.append(el("div", "title", "Credential Vault is locked: open the extension to unlock"));
  } else {
    box.append(el("div", "title", reply.items.length ? `Fill from Credential Vault${reply.source === "cache" ? " (offline)" : ""}` : "No saved sign-in for this site"));
    for (const item of reply.items) box.append(itemButton(item, box, host));
  }
  host.dataset.state = "ready";
  host.dataset.count = String(reply.locked ? 0 : reply.items.length);
  host.dataset.readyMs = (performance.now() - started).toFixed(1);
  host.dataset.sinceNavigationMs = performance.now().toFixed(1);
}

function itemButton(item: MatchItem, box: HTMLElement, host: HTMLElement): HTMLButtonElement {
  const b = el("button", "item");
  b.setAttribute("role", "menuitem");
  b.append(el("div", "name", item.name), el("div", "user", item.username || "(no username)"));
  b.addEventListener("click", async () => {
    const reply = await send<FillReply>({ type: "fill", id: item.id });
    if (reply.ok) {
      fillWith(reply.credentials);
      host.remove();
    } else if (reply.reason === "confirm-insecure") {
      box.replaceChildren(el("div", "warn", "This page is not secure (http) but the sign-in was saved for https. Fill anyway?"));
      const yes = el("button", "confirm", "Fill anyway");
      yes.setAttribute("role", "menuitem");
      yes.addEventListener("click", async () => {
        const again = await send<FillReply>({ type: "fill", id: item.id, confirmed: true });
        if (again.ok) fillWith(again.credentials);
        host.remove();
      });
      box.append(yes);
    }
  });
  return b;
}

function showSaveBar(offer: SaveOffer) {
  const { host, root } = shadowHost("credential-vault-save");
  const box = el("div", "box bar");
  box.setAttribute("role", "dialog");
  box.setAttribute("aria-label", "Save to Credential Vault");
  box.append(el("div", "title", offer.kind === "save" ? `Save the sign-in for ${offer.host} as ${offer.username}?` : `Update the password of ${offer.username} on ${offer.host}?`));
  const row = el("div", "row");
  const yes = el("button", "primary", offer.kind === "save" ? "Save" : "Update");
  const no = el("button", "", "Not now");
  const answer = (accept: boolean) => async () => {
    const { saved } = await send<{ saved: boolean }>({ type: "save-answer", accept });
    host.dataset.state = saved ? "saved" : "dismissed";
    box.replaceChildren(el("div", "title", saved ? "Saved in Credential Vault" : "Not saved"));
    setTimeout(() => host.remove(), 2500);
  };
  yes.addEventListener("click", answer(true));
  no.addEventListener("click", answer(false));
  row.append(yes, no);
  box.append(row);
  root.append(box);
  host.dataset.state = "offered";
}

document.addEventListener(
  "submit",
  (e) => {
    const form = e.target as HTMLFormElement;
    const pw = [...form.querySelectorAll<HTMLInputElement>("input[type=password]")].find((p) => p.value);
    if (pw) void send({ type: "submitted", username: usernameFor(pw)?.value ?? "", password: pw.value });
  },
  true,
);

chrome.runtime.onMessage.addListener((m: { type: string } & Partial<Extract<FillReply, { ok: true }>>) => {
  if (m.type === "do-fill" && m.credentials) fillWith(m.credentials);
  return false;
});

async function start() {
  const pw = passwordFields()[0];
  const otp = totpField();
  if (pw || otp) {
    const reply = await send<MatchReply>({ type: "match" });
    // Marked so a test can tell a refusal from a page the extension has not looked at yet.
    if (!reply.locked && reply.refused) return void (document.documentElement.dataset.credentialVault = reply.refused);
    showMenu((pw && usernameFor(pw)) ?? pw ?? otp!, reply);
  } else if (window === window.top) {
    const offer = await send<SaveOffer | null>({ type: "save-offer" });
    if (offer) showSaveBar(offer);
  }
}

void start();
