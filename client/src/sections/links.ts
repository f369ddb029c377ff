/**
 * Secure links (/links): hand a secret or a file to anyone, sealed in this browser under a key
 * that lives only in the link (docs/decisions/sharing.md, "Sharing: secure links (a secret or a file for anyone, the key in the link)"); list the links with
 * their views and expiry, and revoke one.
 */
import type { AppContext } from "../shell/context";
import {
  createLink,
  LINK_ENDPOINTS,
  MAX_LINK_CONTENT_BYTES,
  MAX_LINK_FILE_BYTES,
  openLabel,
  sealedBytes,
  type LinkPayload,
  type SecureLink,
} from "../../../core/links";
import { el, errorText, formatTime, linkOptions, showLink } from "../../../core/ui";

const STATE: Record<SecureLink["state"], string> = {
  active: "Active",
  expired: "Expired",
  used_up: "Used up",
  revoked: "Revoked",
  locked: "Locked",
};

export function mount(root: HTMLElement, app: AppContext): () => void {
  let gone = false;
  root.classList.add("section");
  const error = el("p", { id: "links-error", className: "error", role: "alert" });
  const kindText = el("input", {
    type: "radio",
    name: "link-kind",
    id: "link-kind-text",
    value: "text",
    checked: true,
  });
  const kindFile = el("input", {
    type: "radio",
    name: "link-kind",
    id: "link-kind-file",
    value: "file",
  });
  const text = el("textarea", { id: "link-text", rows: 4, autocomplete: "off", spellcheck: false });
  const file = el("input", { id: "link-file", type: "file" });
  const textRow = el("div", {}, el("label", { htmlFor: "link-text" }, "Secret text"), text);
  const fileRow = el(
    "div",
    { hidden: true },
    el("label", { htmlFor: "link-file" }, "File (up to 25 MB)"),
    file,
  );
  const options = linkOptions("link");
  const submit = el("button", { type: "submit", id: "link-create" }, "Create link");
  const result = el("div", { id: "link-result", className: "card", hidden: true });
  const form = el(
    "form",
    { id: "link-form", className: "card", "aria-labelledby": "link-form-heading" },
    el("h2", { id: "link-form-heading" }, "New secure link"),
    el(
      "fieldset",
      {},
      el("legend", {}, "What to share"),
      el("label", { className: "inline" }, kindText, "Text"),
      el("label", { className: "inline" }, kindFile, "File"),
    ),
    textRow,
    fileRow,
    ...options.nodes,
    el("div", { className: "row" }, submit),
  );
  const usage = el("p", { id: "links-usage", className: "hint" });
  const list = el("ul", { id: "links", className: "cards", "aria-label": "Your secure links" });
  root.replaceChildren(
    el("h1", {}, "Secure links"),
    el(
      "p",
      { className: "hint" },
      "Share a password, a note or a file with anyone, for a limited time. It is encrypted in this browser; the key is only in the link, so the server cannot read it.",
    ),
    form,
    result,
    error,
    el("h2", {}, "Your links"),
    usage,
    list,
  );
  const syncKind = () => {
    textRow.hidden = !kindText.checked;
    fileRow.hidden = !kindFile.checked;
  };
  kindText.addEventListener("change", syncKind);
  kindFile.addEventListener("change", syncKind);

  async function payload(): Promise<LinkPayload | string> {
    if (kindText.checked)
      return text.value.trim()
        ? { type: "text", fields: [{ label: "Secret", value: text.value }] }
        : "Write the text to share.";
    const f = file.files?.[0];
    if (!f) return "Choose a file to share.";
    if (f.size > MAX_LINK_FILE_BYTES) return "The file is larger than 25 MB.";
    const p: LinkPayload = {
      type: "file",
      name: f.name,
      mime: f.type || "application/octet-stream",
      bytes: new Uint8Array(await f.arrayBuffer()),
    };
    // Its name and type are sealed with it: a file of nearly 25 MB may not leave room for them.
    return sealedBytes(p) > MAX_LINK_CONTENT_BYTES ? "The file is larger than 25 MB." : p;
  }

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.textContent = "";
    const opts = options.read();
    if (typeof opts === "string") {
      error.textContent = opts;
      return;
    }
    const p = await payload();
    if (typeof p === "string") {
      error.textContent = p;
      return;
    }
    submit.disabled = true;
    try {
      const { url } = await createLink(app.api, p, opts, app.keys.vaultKey);
      showLink(result, "link", url, app.toast);
      text.value = "";
      options.reset();
      file.value = "";
      await render();
    } catch (err) {
      error.textContent = errorText(err);
    } finally {
      submit.disabled = false;
    }
  });

  function card(l: SecureLink, label: string | null): HTMLLIElement {
    const revoke = el("button", { type: "button", className: "danger" }, "Revoke");
    revoke.addEventListener("click", async () => {
      if (!confirm("Revoke this link? It stops opening at once and its content is deleted."))
        return;
      error.textContent = "";
      try {
        await app.api.request(LINK_ENDPOINTS.revoke, { params: { id: l.id } });
        app.toast("Link revoked");
      } catch (err) {
        error.textContent = errorText(err);
      }
      await render();
    });
    return el(
      "li",
      { "data-id": l.id, "data-state": l.state },
      label ? el("p", { className: "name link-label" }, label) : "",
      el(
        "p",
        { className: label ? "muted" : "name" },
        `${l.kind === "file" ? "File" : "Text"} · ${STATE[l.state]}`,
        l.has_passphrase ? el("span", { className: "badge" }, "Passphrase") : "",
        l.recipients
          ? el(
              "span",
              { className: "badge" },
              `${l.recipients} recipient${l.recipients === 1 ? "" : "s"} by email`,
            )
          : "",
      ),
      el(
        "p",
        { className: "muted" },
        `Views ${l.views_used} of ${l.max_views} · last opened ${l.last_opened_at ? formatTime(l.last_opened_at) : "never"} · expires ${formatTime(l.expires_at)} · created ${formatTime(l.created_at)}`,
      ),
      l.state === "active" ? el("div", { className: "row" }, revoke) : "",
    );
  }

  async function render() {
    try {
      const r = await app.api.request(LINK_ENDPOINTS.list);
      if (gone) return;
      usage.textContent = `${r.usage.open} of ${r.usage.max_open} links open · ${(r.usage.bytes / 1048576).toFixed(1)} of ${Math.round(r.usage.quota_bytes / 1048576)} MB`;
      // Labels are sealed under the vault key: opened here, never by the server.
      const labels = await Promise.all(
        r.links.map((l) => (l.label ? openLabel(app.keys.vaultKey, l.label) : null)),
      );
      if (gone) return;
      list.replaceChildren(
        ...(r.links.length
          ? r.links.map((l, i) => card(l, labels[i] ?? null))
          : [el("li", { className: "muted" }, "No secure links yet.")]),
      );
    } catch (err) {
      if (!gone) error.textContent = errorText(err);
    }
  }
  void render();
  return () => {
    gone = true;
  };
}
