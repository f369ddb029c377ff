/**
 * New and edit in a modal dialog. A click outside does nothing (a modal dialog has no light
 * dismiss); Cancel and Escape ask before dropping changes that were typed. Saving locks the form
 * while the entry is encrypted and stored, so nothing typed meanwhile is lost.
 */
import { $, el, scope } from "../../pages/common";
import type { AppContext } from "../../shell/context";
import type { EntryKind } from "../../../../core/entry";
import type { EntryInput } from "../../../../core/vault";
import { mountGenerator, mountStrength } from "./generator";
import { EntryFormExtra } from "./form-extra";
import { SshKeyForm } from "./ssh-key-form";

const CARD_INPUTS = {
  cardholder: "f-card-holder",
  number: "f-card-number",
  exp_month: "f-card-month",
  exp_year: "f-card-year",
  code: "f-card-code",
} as const;
const FIELDS = [
  "entry-id",
  "f-name",
  "f-kind",
  "f-website",
  "f-url",
  "f-username",
  "f-password",
  "f-notes",
  "f-category",
  "f-totp",
  "f-folder",
  "f-tags",
  ...Object.values(CARD_INPUTS),
] as const;

export class EntryForm {
  private readonly dialog = $("entry-dialog") as HTMLDialogElement;
  /**
   * Lookups in the dialog, not the document: the teardown of a vault left while it was opening
   * (and late answers) reach a detached dialog, where a document-wide lookup finds nothing.
   */
  private readonly at = scope(this.dialog);
  private readonly form = this.at.$("entry-form") as HTMLFormElement;
  private snapshot = "";
  /** The entry's favourite mark, kept through an edit (it is set from the detail, not here). */
  private favorite = false;
  private readonly strength = mountStrength(this.at);
  private readonly generator = mountGenerator(() => undefined, this.at);
  /** Other addresses, custom fields, identity details (vault-form-extra.ts), placed before Folder. */
  private readonly extra = new EntryFormExtra(this.at.$("f-folder").previousElementSibling!);
  /** An SSH key's part (ssh-key-form.ts), in the place of a login's address and password. */
  private readonly ssh = new SshKeyForm(this.at.$("f-website").previousElementSibling!);

  constructor(
    private readonly app: AppContext,
    /** After a save: the id of the entry saved. */
    private readonly saved: (id: string) => void,
  ) {
    this.form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      void this.submit();
    });
    this.at.$("cancel-edit").addEventListener("click", () => this.requestClose());
    // Escape: handled here (not by the dialog's own cancel), so a dirty form always asks.
    // The keydown's default (the close request) is prevented, so one Escape asks once.
    this.dialog.addEventListener("keydown", (ev) => {
      if (ev.key !== "Escape") return;
      ev.preventDefault();
      ev.stopPropagation();
      this.requestClose();
    });
    // Another close request (a phone's back gesture, say) asks the same way.
    this.dialog.addEventListener("cancel", (ev) => {
      ev.preventDefault();
      this.requestClose();
    });
    this.at.$("f-password-show").addEventListener("click", () => {
      const pw = this.at.input("f-password");
      const show = pw.type === "password";
      pw.type = show ? "text" : "password";
      this.at.$("f-password-show").textContent = show ? "Hide" : "Show";
      this.at.$("f-password-show").setAttribute("aria-pressed", String(show));
    });
    this.at.$("f-kind").addEventListener("change", () => this.showKind());
    this.at.$("f-password-show").setAttribute("aria-label", "Show the password");
    this.at.$("f-password-show").setAttribute("aria-pressed", "false");
    this.fill("", {});
  }

  private text(id: (typeof FIELDS)[number]) {
    return (this.at.$(id) as HTMLInputElement | HTMLTextAreaElement).value;
  }

  private state(): string {
    return JSON.stringify([FIELDS.map((f) => this.text(f)), this.extra.state(), this.ssh.state()]);
  }

  /** Whether anything was typed since the dialog opened. */
  dirty(): boolean {
    return this.dialog.open && this.state() !== this.snapshot;
  }

  /** Only the inputs of the chosen kind are shown (styles.css reads the form's data-kind). */
  private showKind() {
    this.form.dataset.kind = (this.at.$("f-kind") as HTMLSelectElement).value;
  }

  private fill(id: string, v: Partial<EntryInput>) {
    this.at.input("entry-id").value = id;
    this.at.input("f-name").value = v.name ?? "";
    (this.at.$("f-kind") as HTMLSelectElement).value = v.kind ?? "login";
    for (const [k, field] of Object.entries(CARD_INPUTS))
      this.at.input(field).value = v.card?.[k as keyof typeof CARD_INPUTS] ?? "";
    this.extra.fill(v);
    this.ssh.fill(v.ssh);
    this.showKind();
    this.at.input("f-website").value = v.website ?? "";
    this.at.input("f-url").value = v.url ?? "";
    this.at.input("f-username").value = v.username ?? "";
    this.at.input("f-password").value = v.password ?? "";
    this.at.input("f-password").type = "password";
    this.at.$("f-password-show").textContent = "Show";
    this.at.$("f-password-show").setAttribute("aria-pressed", "false");
    (this.at.$("f-notes") as HTMLTextAreaElement).value = v.notes ?? "";
    this.at.input("f-category").value = v.category ?? "";
    this.at.input("f-totp").value = v.totp ?? "";
    this.at.input("f-folder").value = v.folder ?? "";
    this.favorite = v.favorite === true;
    this.at.input("f-tags").value = (v.tags ?? []).join(", ");
    this.at.$("form-heading").textContent = id ? `Edit ${v.name ?? ""}` : "New entry";
    this.at.$("form-error").textContent = "";
    this.strength.reset();
    this.generator.reset();
    this.snapshot = this.state();
  }

  /** Opens the dialog, empty (a new entry) or with an entry's values; `folders` are offered. */
  open(id = "", v: Partial<EntryInput> = {}, folders: string[] = []) {
    if (this.dialog.open && !this.confirmDiscard()) return;
    this.at.$("folder-names").replaceChildren(...folders.map((f) => el("option", { value: f })));
    this.fill(id, v);
    if (v.password) this.strength.update();
    if (!this.dialog.open) this.dialog.showModal();
    this.at.input("f-name").focus();
  }

  private confirmDiscard(): boolean {
    return (
      !this.dirty() ||
      confirm(`Discard the changes to ${this.text("f-name").trim() || "this entry"}?`)
    );
  }

  requestClose() {
    if (this.form.getAttribute("aria-busy") === "true") return;
    if (!this.confirmDiscard()) return;
    this.close();
  }

  close() {
    this.fill("", {});
    if (this.dialog.open) this.dialog.close();
  }

  private setBusy(busy: boolean) {
    this.form.setAttribute("aria-busy", String(busy));
    for (const f of Array.from(this.form.elements)) (f as HTMLInputElement).disabled = busy;
  }

  private async submit() {
    this.at.$("form-error").textContent = "";
    const v: EntryInput = {
      name: this.text("f-name"),
      website: this.text("f-website"),
      url: this.text("f-url"),
      username: this.text("f-username"),
      password: this.text("f-password"),
      notes: this.text("f-notes"),
      category: this.text("f-category"),
      totp: this.text("f-totp"),
      tags: this.text("f-tags")
        .split(",")
        .map((t) => t.trim())
        .filter(Boolean),
      folder: this.text("f-folder"),
      favorite: this.favorite,
      kind: this.text("f-kind") as EntryKind,
    };
    // A card's details are the form's to set only while it is a card; otherwise they are carried as they were.
    Object.assign(v, this.extra.read(v.kind ?? "login"));
    if (v.kind === "card")
      v.card = Object.fromEntries(
        Object.entries(CARD_INPUTS)
          .map(([k, f]) => [k, this.text(f).trim()])
          .filter(([, x]) => x),
      );
    const id = this.text("entry-id");
    this.setBusy(true);
    // An SSH key's, like a card's details, is the form's to set only while the kind is SSH key.
    if (v.kind === "ssh_key") {
      const ssh = await this.ssh.take();
      if (!ssh) {
        this.setBusy(false);
        this.ssh.focus();
        return;
      }
      v.ssh = ssh;
    }
    try {
      const saved = id ? (await this.app.vault.update(id, v), id) : await this.app.vault.create(v);
      // The dialog closes once the list and the pending count show the saved entry.
      await this.app.refresh();
      this.setBusy(false);
      this.close();
      this.app.toast(id ? `Saved ${v.name.trim()}` : `Added ${v.name.trim()}`);
      this.saved(saved);
      await this.app.changed();
    } catch (err) {
      this.setBusy(false);
      (this.form.querySelector("#form-error") as HTMLElement).textContent =
        err instanceof Error ? err.message : String(err);
    }
  }

  /**
   * Lets the form submit (until then a native submission would put secrets in a request). Found in
   * this form, not the document: the vault may have been left while it was opening.
   */
  enable() {
    (this.form.querySelector("#save") as HTMLButtonElement).disabled = false;
  }
}
