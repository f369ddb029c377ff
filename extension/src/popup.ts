/** The toolbar popup: session and lock state, unlock, the current site's matches, lock, settings. */
import { generatePassword, optionsFor } from "../../src/kernel/password-generator";
import { describe, requirementsFor } from "./generator";
import type { FillWarning, MatchItem, MatchReply, PickReply, Request, Status } from "./messages";
import { warningParts } from "./warning";
import { shareView } from "./popup-link";
import { el } from "../../core/ui";

const send = <T>(m: Request): Promise<T> => chrome.runtime.sendMessage(m);
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
let appOrigin = "";
/** "Share a link": locked part-way, the popup shows its unlock step and the view comes back after it. */
const share = shareView($("share"), send, { locked: () => render(), appOrigin: () => appOrigin });

/** The tab the popup acts on: the active web page (a popup opened as a tab falls back to the last one used). */
async function targetTab(): Promise<chrome.tabs.Tab | undefined> {
  const web = (t: chrome.tabs.Tab) => /^https?:/.test(t.url ?? "");
  const [active] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
  if (active && web(active)) return active;
  return (await chrome.tabs.query({}))
    .filter(web)
    .sort((a, b) => (b.lastAccessed ?? 0) - (a.lastAccessed ?? 0))[0];
}

function matchRow(
  tab: chrome.tabs.Tab,
  documentId: string | undefined,
  item: MatchItem,
): HTMLLIElement {
  const text = el(
    "div",
    {},
    el("div", { className: "name", textContent: item.name }),
    el("div", { className: "user", textContent: item.username || "(no username)" }),
  );
  const fill = document.createElement("button");
  fill.className = "fill";
  fill.type = "button";
  fill.textContent = "Fill";
  fill.setAttribute("aria-label", `Fill ${item.name} ${item.username}`);
  fill.addEventListener("click", async () => {
    const confirmed =
      item.insecure &&
      confirm("This page is not secure (http) but the sign-in was saved for https. Fill anyway?");
    if (item.insecure && !confirmed) return;
    const reply = await send<PickReply>({
      type: "fill-tab",
      tabId: tab.id!,
      documentId,
      id: item.id,
      confirmed,
    });
    if (reply.ok && reply.warning) showWarning(reply.warning);
    else if (reply.ok) window.close();
    else $("insecure").textContent = `Not filled: ${reply.reason}`;
  });
  const link = document.createElement("button");
  link.type = "button";
  link.textContent = "Share";
  link.setAttribute("aria-label", `Share ${item.name} ${item.username} by link`);
  link.addEventListener("click", () => void share.show(item).then(() => render()));
  const buttons = document.createElement("div");
  buttons.className = "row-actions";
  buttons.append(link, fill);
  return el("li", {}, text, buttons);
}

/** The page was filled; the popup stays open to say why its password should change. */
function showWarning(w: FillWarning) {
  const { kinds, text, link } = warningParts(w);
  const box = $("fill-warning");
  const p = document.createElement("p");
  p.textContent = text;
  box.replaceChildren(p, link);
  box.hidden = false;
  document.body.dataset.warning = kinds;
}

/** The sync line: during a first sync, how many entries have arrived so far. */
function syncLine(status: Status) {
  const pending = status.pending ? `${status.pending} change(s) waiting to sync. ` : "";
  const when = status.lastSync
    ? `Synced ${new Date(status.lastSync).toLocaleTimeString()}`
    : "Not synced yet";
  $("sync").textContent =
    pending +
    (status.synced ? when : `First sync: ${status.cached.toLocaleString()} entries so far…`);
  document.body.dataset.synced = String(status.synced);
}

let following: ReturnType<typeof setTimeout> | undefined;
/**
 * While a first sync is under way the sync line counts the entries as they arrive, and the site's
 * matches are asked again once it is done (they then come from the synced copy). The matches drawn
 * meanwhile are the server's, so nothing the first sync has not reached is missing from them.
 */
function followFirstSync(status: Status) {
  clearTimeout(following);
  if (!status.unlocked || status.synced) return;
  following = setTimeout(async () => {
    const now = await send<Status>({ type: "status" });
    if (now.unlocked && now.synced) return void render();
    syncLine(now);
    followFirstSync(now);
  }, 1000);
}

async function render() {
  const status = await send<Status>({ type: "status" });
  // A sign-in that owes its 2FA code is asked for it first, unlocked or not: nothing fills before.
  const owesCode = status.signedIn && status.twoFactorRequired;
  document.body.dataset.state = !status.signedIn
    ? "signed-out"
    : owesCode
      ? "two-factor"
      : status.unlocked
        ? "unlocked"
        : "locked";
  $("who").textContent = status.email ?? "";
  $<HTMLInputElement>("app-origin").value = status.appOrigin;
  $<HTMLAnchorElement>("open-app").href = status.appOrigin;
  $("signed-out").hidden = status.signedIn;
  $("two-factor").hidden = !owesCode;
  $("unlock").hidden = !status.signedIn || owesCode || status.unlocked;
  appOrigin = status.appOrigin;
  const sharing = share.open && status.unlocked && !owesCode;
  $("vault").hidden = owesCode || !status.unlocked || sharing;
  $("share").hidden = !sharing;
  $("generator").hidden = sharing;
  if (sharing) return share.resume();
  if (owesCode) {
    $("two-factor-code").focus();
    return;
  }
  if (!status.unlocked) {
    if (status.signedIn) $("passphrase").focus();
    return;
  }
  syncLine(status);
  followFirstSync(status);
  const tab = await targetTab();
  const list = $("matches");
  list.replaceChildren();
  if (!tab?.url) {
    $("site").textContent = "No web page open";
    return;
  }
  $("site").textContent = new URL(tab.url).host;
  // The matches of the tab's document as it is now: a fill goes to that document or nowhere.
  const reply = await send<MatchReply & { documentId?: string }>({ type: "match", tabId: tab.id! });
  const items = reply.locked ? [] : reply.items;
  for (const item of items) list.append(matchRow(tab, reply.documentId, item));
  $("no-matches").hidden = items.length > 0;
  document.body.dataset.matches = String(items.length);
}

$<HTMLFormElement>("unlock").addEventListener("submit", async (e) => {
  e.preventDefault();
  const input = $<HTMLInputElement>("passphrase");
  $("unlock-error").textContent = "";
  const reply = await send<{ ok: boolean; error?: string }>({
    type: "unlock",
    passphrase: input.value,
  });
  input.value = "";
  if (!reply.ok) $("unlock-error").textContent = reply.error ?? "Unlock failed";
  await render();
});

let recovery = false;
$("use-recovery").addEventListener("click", () => {
  recovery = !recovery;
  $("two-factor-label").textContent = recovery
    ? "Recovery code"
    : "Code from your authenticator app";
  $("use-recovery").textContent = recovery ? "Use an authenticator code" : "Use a recovery code";
  const input = $<HTMLInputElement>("two-factor-code");
  input.inputMode = recovery ? "text" : "numeric";
  input.value = "";
  input.focus();
});

$<HTMLFormElement>("two-factor").addEventListener("submit", async (e) => {
  e.preventDefault();
  const input = $<HTMLInputElement>("two-factor-code");
  $("two-factor-error").textContent = "";
  const reply = await send<{ ok: boolean; error?: string }>({
    type: "verify-2fa",
    code: input.value,
  });
  input.value = "";
  if (!reply.ok) {
    $("two-factor-error").textContent = reply.error ?? "That code was not accepted";
    return;
  }
  await render();
});

async function generate() {
  const tab = await targetTab();
  const { service, requirements } = requirementsFor(tab?.url ?? "");
  $("requirements").textContent =
    `${service ? `${service}'s rules` : "Default rules"}: ${describe(requirements)}`;
  $<HTMLInputElement>("generated").value = generatePassword(optionsFor(requirements), requirements);
}

$("generate").addEventListener("click", () => void generate());
$("copy").addEventListener(
  "click",
  () => void navigator.clipboard.writeText($<HTMLInputElement>("generated").value),
);

$("share-open").addEventListener("click", () => void share.show(null).then(() => render()));
$("share").addEventListener("share-closed", () => void render());

$("lock").addEventListener("click", async () => {
  await send({ type: "lock" });
  await render();
});

$("save-settings").addEventListener("click", async () => {
  await chrome.storage.local.set({
    appOrigin: new URL($<HTMLInputElement>("app-origin").value).origin,
  });
  await render();
});

void render();
