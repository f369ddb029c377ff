/**
 * The popup's "Share a link" view (docs/decisions/extension.md, "Extension: secure links from the popup"): a
 * free text, or fields of an entry, sent as a secure link with the web app's options. The popup
 * names the entry and the fields it wants; the offscreen vault reads them, seals them under a new
 * key and uploads the ciphertext (link-vault.ts). The address with its key comes back here only,
 * to be copied; nothing goes into a page.
 */
import { linkOptions, showLink, el } from "../../core/ui";
import type {
  LinkCreateReply,
  LinkEntriesReply,
  LinkFieldsReply,
  LinkSource,
  Request,
} from "./messages";

type Send = <T>(m: Request) => Promise<T>;
type EntryKey = Extract<LinkSource, { kind: "entry" }>["fields"][number];
type Chosen = { id: string; name: string };

/**
 * Mounts the view into `root` (hidden until opened). `locked` is called when the vault turned out
 * locked: the popup then shows its unlock step, and the view comes back with what was typed.
 */
export function shareView(
  root: HTMLElement,
  send: Send,
  opts: { locked: () => Promise<void>; appOrigin: () => string },
) {
  let entry: Chosen | null = null;
  let open = false;
  const heading = el("h2", { id: "share-title" }, "Share a link");
  const back = el("button", { type: "button", id: "share-back" }, "Back");
  const kindText = el("input", {
    type: "radio",
    name: "share-kind",
    id: "share-kind-text",
    checked: true,
  });
  const kindEntry = el("input", { type: "radio", name: "share-kind", id: "share-kind-entry" });
  const kinds = el(
    "fieldset",
    { id: "share-kinds" },
    el("legend", {}, "What to send"),
    el("label", { className: "inline" }, kindText, "Text"),
    el("label", { className: "inline" }, kindEntry, "Entry"),
  );
  const text = el("textarea", {
    id: "share-text",
    rows: 4,
    autocomplete: "off",
    spellcheck: false,
  });
  const textPart = el("div", {}, el("label", { htmlFor: "share-text" }, "Secret text"), text);
  const find = el("input", {
    id: "share-find",
    type: "search",
    autocomplete: "off",
    spellcheck: false,
  });
  const found = el("ul", { id: "share-found", className: "found" });
  const findPart = el(
    "div",
    {},
    el("label", { htmlFor: "share-find" }, "Find an entry"),
    find,
    found,
  );
  const fieldset = el("fieldset", { id: "share-fields" });
  const options = linkOptions("share");
  const error = el("p", { id: "share-error", className: "error", role: "alert" });
  const status = el("p", { id: "share-status", role: "status" });
  const submit = el("button", { type: "submit" }, "Create link");
  const form = el(
    "form",
    { id: "share-form" },
    el(
      "p",
      { className: "hint" },
      "Anyone with the link can open it, without an account. It is encrypted here; the key is only in the link.",
    ),
    kinds,
    textPart,
    findPart,
    fieldset,
    ...options.nodes,
    error,
    el("div", { className: "actions" }, submit),
  );
  const result = el("div", { id: "share-result", hidden: true });
  const file = el(
    "a",
    { id: "share-file", target: "_blank", rel: "noopener" },
    "Share a file from the web app",
  );
  root.replaceChildren(
    el("div", { className: "share-head" }, heading, back),
    form,
    result,
    el("p", { className: "hint" }, file),
    status,
  );

  /** Asks the vault which of the entry's fields can go (labels only) and draws the ticks. */
  async function drawFields() {
    fieldset.replaceChildren(el("legend", {}, "Fields to include"));
    if (!entry) return;
    const reply = await send<LinkFieldsReply>({ type: "link-fields", id: entry.id });
    if (reply.locked) return opts.locked();
    if (!reply.found) {
      fieldset.append(
        el(
          "p",
          { className: "error" },
          "This entry is not in the extension's copy of the vault yet.",
        ),
      );
      return;
    }
    fieldset.append(
      el(
        "p",
        { className: "hint", id: "share-entry" },
        `${reply.name}${reply.username ? ` (${reply.username})` : ""}`,
      ),
    );
    for (const f of reply.fields)
      fieldset.append(
        el(
          "label",
          { className: "inline" },
          el("input", { type: "checkbox", value: f.key, checked: f.checked }),
          f.label,
        ),
      );
  }

  function drawKind() {
    textPart.hidden = !kindText.checked;
    findPart.hidden = kindText.checked;
    fieldset.hidden = kindText.checked || !entry;
  }

  /** The vault's entries whose name or website holds what was typed: the person picks the one to send. */
  async function search() {
    const query = find.value;
    const reply = await send<LinkEntriesReply>({ type: "link-entries", query });
    if (reply.locked) return opts.locked();
    if (query !== find.value) return;
    found.replaceChildren(
      ...reply.entries.map((e) => {
        const pick = el(
          "button",
          { type: "button", className: "pick" },
          e.name,
          el("span", { className: "hint" }, e.website ?? ""),
        );
        pick.addEventListener("click", async () => {
          entry = { id: e.id, name: e.name };
          found.replaceChildren();
          find.value = "";
          drawKind();
          await drawFields();
        });
        return el("li", {}, pick);
      }),
    );
    if (!reply.entries.length)
      found.append(el("li", { className: "hint" }, "No entry by that name or website."));
  }
  find.addEventListener("input", () => void search());
  kindText.addEventListener("change", drawKind);
  kindEntry.addEventListener("change", () => {
    drawKind();
    if (!entry) void search();
  });

  back.addEventListener("click", () => view.close());

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.textContent = "";
    const read = options.read();
    if (typeof read === "string") {
      error.textContent = read;
      return;
    }
    let source: LinkSource;
    if (kindText.checked) {
      if (!text.value.trim()) {
        error.textContent = "Write the text to share.";
        return;
      }
      source = { kind: "text", text: text.value };
    } else {
      if (!entry) {
        error.textContent = "Find and choose the entry to send.";
        return;
      }
      const fields = [
        ...fieldset.querySelectorAll<HTMLInputElement>("input[type=checkbox]:checked"),
      ].map((b) => b.value as EntryKey);
      if (!fields.length) {
        error.textContent = "Choose at least one field.";
        return;
      }
      source = { kind: "entry", id: entry.id, fields };
    }
    submit.disabled = true;
    status.textContent = "Encrypting and uploading…";
    try {
      const reply = await send<LinkCreateReply>({ type: "link-create", source, options: read });
      status.textContent = "";
      if (reply.ok) {
        form.hidden = true;
        showLink(result, "share", reply.url, (m) => (status.textContent = m));
        document.body.dataset.share = "done";
        text.value = "";
        options.reset();
      } else if (reply.locked) await opts.locked();
      else error.textContent = reply.error;
    } finally {
      submit.disabled = false;
    }
  });

  const view = {
    get open() {
      return open;
    },
    /** Opens the form, for `item`'s fields or (none) a free text. */
    async show(item: Chosen | null) {
      entry = item ? { id: item.id, name: item.name } : null;
      open = true;
      kindEntry.checked = !!item;
      kindText.checked = !item;
      form.hidden = false;
      result.hidden = true;
      result.replaceChildren();
      error.textContent = "";
      status.textContent = "";
      file.href = new URL("/links", opts.appOrigin()).href;
      heading.textContent = "Share a link";
      find.value = "";
      found.replaceChildren();
      document.body.dataset.share = "form";
      drawKind();
      root.hidden = false;
      await drawFields();
      (item ? submit : text).focus();
    },
    /** Shown again (after an unlock): the entry's fields are asked for if the vault was locked when they were. */
    async resume() {
      root.hidden = false;
      if (entry && !fieldset.querySelector("input")) await drawFields();
    },
    close() {
      open = false;
      root.hidden = true;
      delete document.body.dataset.share;
      root.dispatchEvent(new Event("share-closed"));
    },
  };
  return view;
}
