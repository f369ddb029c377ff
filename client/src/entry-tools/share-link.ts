/**
 * "Share by link" of an entry: the person picks which fields go into a secure link (sealed in this
 * browser; docs/decisions/sharing.md, "Sharing: secure links (a secret or a file for anyone, the key in the link)"), sets its options and gets the link to send.
 */
import { linkOptions, showLink, el, errorText } from "../../../core/ui";
import { createLink, entryLinkFields } from "../../../core/links";
import type { EntryContext } from "../shell/context";

export function mount(root: HTMLElement, ctx: EntryContext): void {
  const { entry, fields, app } = ctx;
  const candidates = entryLinkFields(entry, fields);
  const boxes = candidates.map((c, i) => ({
    c,
    box: el("input", { type: "checkbox", id: `share-link-field-${i}`, checked: c.checked }),
  }));
  const options = linkOptions("share-link");
  const error = el("p", { id: "share-link-error", className: "error", role: "alert" });
  const submit = el("button", { type: "submit" }, "Create link");
  const result = el("div", { id: "share-link-result", className: "card", hidden: true });
  const form = el(
    "form",
    { id: "share-link-form" },
    el(
      "p",
      { className: "hint" },
      "Send the chosen fields to anyone, even without an account. They are encrypted in this browser; the key is only in the link.",
    ),
    el(
      "fieldset",
      {},
      el("legend", {}, "Fields to include"),
      ...boxes.map(({ c, box }) => el("label", { className: "inline" }, box, c.label)),
    ),
    ...options.nodes,
    error,
    el("div", { className: "row" }, submit),
  );
  root.replaceChildren(form, result);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.textContent = "";
    const chosen = boxes
      .filter((b) => b.box.checked)
      .map(({ c }) => ({ label: c.label, value: c.value }));
    if (!chosen.length) {
      error.textContent = "Choose at least one field.";
      return;
    }
    const opts = options.read();
    if (typeof opts === "string") {
      error.textContent = opts;
      return;
    }
    submit.disabled = true;
    try {
      const { url } = await createLink(
        app.api,
        { type: "text", fields: chosen },
        opts,
        app.keys.vaultKey,
      );
      showLink(result, "share-link", url, app.toast);
      options.reset();
    } catch (err) {
      error.textContent = errorText(err);
    } finally {
      submit.disabled = false;
    }
  });
}
