/**
 * The open page of a secure link (/l/<id>#<key>): no account, no service worker. It reads the
 * key from the fragment (never sent anywhere), asks for a passphrase when the link has one,
 * counts a view only when the person asks to see the content, and decrypts in the browser.
 */
import {
  LinkKeyError,
  openPayload,
  passphraseVerifier,
  type LinkPayload,
  type LinkState,
  type PublicLink,
} from "../../../core/links";
import type { WireResponse } from "../../../core/api";
import { el } from "../../../core/ui";
import { $, input } from "./common";

const STATE_TEXT: Record<Exclude<LinkState, "active">, string> = {
  expired: "This link has expired. Ask the sender for a new one.",
  used_up: "This link has already been opened as many times as the sender allowed.",
  revoked: "The sender revoked this link.",
  locked: "This link is locked: a wrong passphrase or email code was entered too many times.",
};

const id = location.pathname.split("/")[2] ?? "";
const fragment = location.hash.slice(1);
// The key must not linger in the address bar or history once read.
if (fragment) history.replaceState(null, "", location.pathname);

const status = $("link-status");
const say = (text: string, state = "info") => {
  status.textContent = text;
  status.dataset.state = state;
  status.className = state === "error" ? "error" : "hint";
};

async function api(
  path: string,
  init?: RequestInit,
): Promise<{ res: Response; body: Record<string, unknown> }> {
  const res = await fetch(path, {
    credentials: "omit",
    referrerPolicy: "no-referrer",
    cache: "no-store",
    ...init,
  });
  return { res, body: (await res.json().catch(() => ({}))) as Record<string, unknown> };
}

function ended(state: string) {
  $("link-ask").hidden = true;
  say(STATE_TEXT[state as Exclude<LinkState, "active">] ?? "This link cannot be opened.", "error");
}

function facts(meta: PublicLink): string {
  const who = meta.sender_email ? `Shared by ${meta.sender_email}. ` : "";
  const views =
    meta.views_left === 1
      ? "It can be opened once more."
      : `It can be opened ${meta.views_left} more times.`;
  return `${who}${meta.kind === "file" ? "A file" : "A secret"}. ${views} Expires ${new Date(meta.expires_at).toLocaleString()}.`;
}

const plural = (n: number) => `${n} attempt${n === 1 ? "" : "s"}`;

function refusal(reason: string, left: number): string {
  switch (reason) {
    case "wrong_passphrase":
      return `Wrong passphrase. ${plural(left)} left before the link locks.`;
    case "wrong_code":
      return `Wrong code. ${plural(left)} left for this code.`;
    case "code_expired":
      return "This code has expired or was already used. Ask for a new code.";
    case "code_locked":
      return "Too many wrong codes. Ask for a new code.";
    case "code_required":
      return "Enter your email address and ask for a code first.";
    default:
      return "Enter the passphrase the sender gave you.";
  }
}

function copyButton(label: string, value: string): HTMLButtonElement {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "secondary";
  b.textContent = "Copy";
  b.setAttribute("aria-label", `Copy ${label}`);
  b.addEventListener("click", async () => {
    await navigator.clipboard.writeText(value);
    say(`${label} copied.`, "opened");
  });
  return b;
}

function show(payload: LinkPayload) {
  $("link-ask").hidden = true;
  const list = $("link-fields");
  list.replaceChildren();
  if (payload.type === "text") {
    for (const f of payload.fields)
      list.append(
        el(
          "li",
          {},
          el("p", { className: "name", textContent: f.label }),
          el("pre", { className: "link-value", textContent: f.value }),
          copyButton(f.label, f.value),
        ),
      );
  } else {
    const name = el("p", { className: "name", textContent: payload.name });
    const size = el("p", {
      className: "muted",
      textContent: `${payload.bytes.length.toLocaleString()} bytes · ${payload.mime}`,
    });
    const a = document.createElement("a");
    a.className = "button";
    a.id = "link-download";
    // The sender's type is not trusted: a blob URL is this origin's, and typed as HTML or SVG it would
    // run as a page here if opened rather than saved. Bytes to save, named by the download attribute.
    a.href = URL.createObjectURL(
      new Blob([payload.bytes as Uint8Array<ArrayBuffer>], { type: "application/octet-stream" }),
    );
    a.download = payload.name;
    a.textContent = `Download ${payload.name}`;
    list.append(el("li", {}, name, size, a));
  }
  $("link-content").hidden = false;
  say("Opened. The content was decrypted in this browser.", "opened");
}

async function main() {
  if (!/^[A-Za-z0-9_-]{22}$/.test(id)) return say("This is not a secure link address.", "error");
  if (!fragment)
    return say(
      "This link is incomplete: the part after # is missing. Ask the sender to send the whole link.",
      "error",
    );
  const { res, body } = await api(`/api/links/public/${id}`);
  if (res.status === 404)
    return say("This link does not exist, or it was removed after it ended.", "error");
  if (!res.ok)
    return say(
      String(body.error ?? "The link cannot be checked right now. Try again later."),
      "error",
    );
  const meta = body as PublicLink;
  if (meta.state !== "active") return ended(meta.state);
  $("link-facts").textContent = facts(meta);
  $("link-passphrase-row").hidden = !meta.passphrase;
  $("link-email-row").hidden = !meta.recipients_only;
  $("link-ask").hidden = false;
  say("Ready to open.", "ready");
  const form = $("link-form") as HTMLFormElement;
  const error = $("link-error");
  const button = $("link-reveal") as HTMLButtonElement;
  /** The open attempt the mailed code belongs to: a code opens only the attempt it was sent for. */
  let challenge = "";
  const sendCode = $("link-send-code") as HTMLButtonElement;
  sendCode.addEventListener("click", async () => {
    error.textContent = "";
    const email = input("link-email").value.trim();
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) {
      error.textContent = "Enter your email address.";
      return;
    }
    sendCode.disabled = true;
    try {
      const { res: r, body: b } = await api(`/api/links/public/${id}/code`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email }),
      });
      if (r.status === 410) return ended(String(b.state));
      if (!r.ok) {
        error.textContent = String(b.error ?? "The code could not be sent. Try again.");
        return;
      }
      const sent = b as WireResponse<"/api/links/public/{id}/code", "post">;
      challenge = sent.challenge;
      $("link-code-sent").textContent = sent.message;
      $("link-code-row").hidden = false;
      sendCode.textContent = "Send a new code";
      input("link-code").value = "";
      input("link-code").focus();
    } catch {
      error.textContent = "The code could not be sent. Check your connection and try again.";
    } finally {
      sendCode.disabled = false;
    }
  });
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.textContent = "";
    const passphrase = input("link-passphrase").value;
    if (meta.passphrase && !passphrase) {
      error.textContent = "Enter the passphrase the sender gave you.";
      return;
    }
    const code = input("link-code").value.trim();
    if (meta.recipients_only && (!challenge || !/^\d{6}$/.test(code))) {
      error.textContent = challenge
        ? "Enter the 6-digit code from the email."
        : "Enter your email address and ask for a code first.";
      return;
    }
    button.disabled = true;
    try {
      const verifier = meta.passphrase
        ? await passphraseVerifier(passphrase, meta.passphrase.salt)
        : undefined;
      const { res: r, body: b } = await api(`/api/links/public/${id}/open`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          ...(verifier ? { verifier } : {}),
          ...(meta.recipients_only ? { challenge, code } : {}),
        }),
      });
      if (r.status === 410) return ended(String(b.state));
      if (r.status === 403) {
        error.textContent = refusal(String(b.reason), Number(b.attempts_left));
        if (b.reason === "code_expired" || b.reason === "code_locked") {
          challenge = "";
          $("link-code-row").hidden = true;
        }
        return;
      }
      if (!r.ok) {
        error.textContent = String(b.error ?? "The link could not be opened. Try again.");
        return;
      }
      const { content } = b as WireResponse<"/api/links/public/{id}/open", "post">;
      show(await openPayload(fragment, content));
    } catch (err) {
      if (err instanceof LinkKeyError) {
        $("link-ask").hidden = true;
        say(
          `${err.message}: the link was changed or cut. Ask the sender to send it again.`,
          "error",
        );
      } else
        error.textContent = "The link could not be opened. Check your connection and try again.";
    } finally {
      button.disabled = false;
    }
  });
}

void main();
