/**
 * Entry attachments (spec "Vault attachment"): files are encrypted here (content, name and type,
 * each under a per-file key wrapped by the vault key) and uploaded with a progress bar; listed with
 * their decrypted names, downloaded and decrypted, deleted. The quota and its use are shown.
 */
import { buildUploadBody, decryptAttachment, decryptAttachmentInfo } from "../../../core/crypto";
import type { AttachmentMeta } from "../../../core/api";
import type { EntryContext } from "../shell/context";
import { el, errorText, formatBytes } from "../../../core/ui";

/** Spec "Limits": 25 MB per file. Checked here too, so nothing is encrypted and sent in vain. */
export const MAX_FILE_BYTES = 25 * 1024 * 1024;
/** The stored size of a file: 12-byte IV, the ciphertext, the 16-byte GCM tag. */
const storedSize = (n: number) => n + 12 + 16;

export function mount(root: HTMLElement, entry: EntryContext): () => void {
  const { api, keys, toast } = entry.app;
  let gone = false;
  const usage = el("p", { id: "attachments-usage", className: "muted" });
  const list = el("ul", { id: "attachments", className: "cards", "aria-label": "Attachments" });
  const file = el("input", { id: "attachment-file", type: "file" });
  const progress = el("progress", {
    id: "attachment-progress",
    max: 100,
    value: 0,
    hidden: true,
    "aria-label": "Upload progress",
  });
  const error = el("p", { id: "attachment-error", className: "error", role: "alert" });
  const upload = el("button", { type: "submit" }, "Upload");
  const form = el(
    "form",
    { id: "attachment-form" },
    el("label", { htmlFor: "attachment-file" }, "Attach a file (up to 25 MB)"),
    file,
    el("div", { className: "row" }, upload),
    progress,
    error,
  );
  root.replaceChildren(usage, list, form);
  let quota = { used: 0, quota: 0 };

  function row(a: AttachmentMeta, name: string) {
    const get = el(
      "button",
      { type: "button", className: "secondary", "aria-label": `Download ${name}` },
      "Download",
    );
    const del = el(
      "button",
      { type: "button", className: "danger", "aria-label": `Delete ${name}` },
      "Delete",
    );
    get.addEventListener("click", () => {
      void (async () => {
        const { attachment } = await api.attachment(a.id);
        const plain = await decryptAttachment(keys.vaultKey, attachment);
        const url = URL.createObjectURL(
          new Blob([plain.content], { type: plain.mimeType || "application/octet-stream" }),
        );
        const link = el("a", { href: url, download: plain.filename });
        document.body.append(link);
        link.click();
        link.remove();
        setTimeout(() => URL.revokeObjectURL(url), 10_000);
        toast(`Downloaded ${plain.filename}`);
      })().catch((err: unknown) => (error.textContent = `Cannot download: ${errorText(err)}`));
    });
    del.addEventListener("click", () => {
      if (!confirm(`Delete ${name}?`)) return;
      void api
        .deleteAttachment(a.id)
        .then(async () => {
          toast(`Deleted ${name}`);
          await render();
        })
        .catch((err: unknown) => (error.textContent = `Cannot delete: ${errorText(err)}`));
    });
    return el(
      "li",
      { "data-id": a.id },
      el("span", { className: "name" }, name),
      el(
        "span",
        { className: "muted" },
        ` ${formatBytes(a.size)} · ${new Date(a.created_at).toLocaleDateString()}`,
      ),
      el("span", { className: "actions" }, get, del),
    );
  }

  const decryptedName = async (a: AttachmentMeta) =>
    (await decryptAttachmentInfo(keys.vaultKey, a)).filename;

  async function render() {
    const data = await api.attachments(entry.id);
    if (gone) return;
    quota = data.usage;
    usage.textContent = `${formatBytes(quota.used)} of ${formatBytes(quota.quota)} used`;
    usage.dataset.used = String(quota.used);
    const rows = await Promise.all(
      data.attachments.map(async (a) =>
        row(a, await decryptedName(a).catch(() => "(cannot be decrypted)")),
      ),
    );
    if (gone) return;
    list.replaceChildren(...rows);
    if (rows.length === 0)
      list.replaceChildren(el("li", { className: "muted" }, "No attachments."));
  }

  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    error.textContent = "";
    const f = file.files?.[0];
    if (!f) {
      error.textContent = "Choose a file first";
      return;
    }
    if (f.size === 0) {
      error.textContent = "That file is empty";
      return;
    }
    if (f.size > MAX_FILE_BYTES) {
      error.textContent = `${f.name} is ${formatBytes(f.size)}; files are limited to 25 MB`;
      return;
    }
    if (quota.quota && quota.used + storedSize(f.size) > quota.quota) {
      error.textContent = `Not enough space: ${formatBytes(quota.quota - quota.used)} left of ${formatBytes(quota.quota)}`;
      return;
    }
    upload.disabled = true;
    progress.hidden = false;
    progress.value = 0;
    void (async () => {
      const body = await buildUploadBody(
        keys.vaultKey,
        { id: entry.id, type: "password" },
        {
          content: new Uint8Array(await f.arrayBuffer()),
          filename: f.name,
          mimeType: f.type || "application/octet-stream",
        },
      );
      await api.uploadAttachment(
        body,
        (sent, total) => (progress.value = total ? Math.round((sent / total) * 100) : 0),
      );
      progress.value = 100;
      toast(`Attached ${f.name}`);
      form.reset();
      await render();
    })()
      .catch((err: unknown) => (error.textContent = `Upload failed: ${errorText(err)}`))
      .finally(() => {
        upload.disabled = false;
        progress.hidden = true;
      });
  });

  void render().catch(
    (err: unknown) => (error.textContent = `Cannot load attachments: ${errorText(err)}`),
  );
  return () => {
    gone = true;
  };
}
