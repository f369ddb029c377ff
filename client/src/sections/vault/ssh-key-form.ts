/**
 * The entry form's SSH key part, shown while the kind is "SSH key": Generate key makes an Ed25519
 * key in this browser (core/entry/ssh-key.ts, WebCrypto), or the person imports one by pasting an
 * OpenSSH private key file (Ed25519, ECDSA or RSA: core/entry/ssh-signer.ts) or choosing it. The key's public line and fingerprint are shown; its
 * private half never is here (the entry's detail shows it masked), so a pasted key leaves the box
 * once it is read. A key that cannot be read says why under the box, and the form saves nothing
 * while it is there. The key then travels like every other secret: inside the sealed payload.
 */
import { el } from "../../pages/common";
import { generateSshKey, importSshKey, type SshKey } from "../../../../core/entry";

/** Larger than any OpenSSH key file the vault keeps (an RSA 16384-bit one is about 13 KB): a file this size is not one. */
const MAX_FILE = 64 * 1024;

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export class SshKeyForm {
  private readonly box = el("textarea", {
    id: "f-ssh-private",
    rows: 4,
    spellcheck: false,
    autocomplete: "off",
    placeholder: "-----BEGIN OPENSSH PRIVATE KEY-----",
  });
  private readonly file = el("input", { type: "file", id: "f-ssh-file" });
  private readonly error = el("p", { id: "f-ssh-error", className: "error" });
  private readonly status = el("p", { id: "f-ssh-status", className: "hint" });
  private readonly publicKey = el("code", { id: "f-ssh-public" });
  private readonly fingerprint = el("code", { id: "f-ssh-fingerprint" });
  private readonly summary = el(
    "div",
    { className: "ssh-summary" },
    el("span", { textContent: "Public key" }),
    this.publicKey,
    el("span", { textContent: "Fingerprint" }),
    this.fingerprint,
  );
  private readonly generate = el("button", {
    type: "button",
    id: "f-ssh-generate",
    className: "secondary",
    textContent: "Generate key",
  });
  /** The key the form saves: the entry's own, or one made or imported since it opened. */
  private key: SshKey | undefined;
  /** The key the entry held when the form opened: replacing it asks first. */
  private saved: SshKey | undefined;
  /** The last text read, so a paste read as it lands and again on Save is read once. */
  private read: { text: string; key: Promise<SshKey> } | null = null;

  constructor(before: Element) {
    this.box.setAttribute("aria-describedby", "f-ssh-error");
    this.error.setAttribute("role", "alert");
    this.status.setAttribute("aria-live", "polite");
    this.generate.addEventListener("click", () => void this.makeKey());
    // A paste or a drop is a whole key: read it at once. Typing is read on leaving the box (or Save).
    this.box.addEventListener("input", (ev) => {
      const how = (ev as InputEvent).inputType;
      if (how === "insertFromPaste" || how === "insertFromDrop") void this.importText();
      else this.showError("");
    });
    this.box.addEventListener("change", () => void this.importText());
    this.file.addEventListener("change", () => void this.importFile());
    before.before(
      el(
        "fieldset",
        { className: "ssh-only", id: "f-ssh" },
        el("legend", { textContent: "SSH key" }),
        this.status,
        this.summary,
        el("div", { className: "row" }, this.generate),
        el("label", { htmlFor: "f-ssh-private", textContent: "Import key: paste the private key" }),
        this.box,
        this.error,
        el("label", { htmlFor: "f-ssh-file", textContent: "Or choose the key file" }),
        this.file,
      ),
    );
  }

  /** Opens the form on an entry's key (none for a new entry). */
  fill(key: SshKey | undefined) {
    this.key = key;
    this.saved = key;
    this.read = null;
    this.box.value = "";
    this.file.value = "";
    this.showError("");
    this.show(key ? "This entry's key." : "No key yet: generate one, or import yours.");
  }

  private show(status: string) {
    this.status.textContent = status;
    this.summary.hidden = !this.key;
    this.publicKey.textContent = this.key?.public_key ?? "";
    this.fingerprint.textContent = this.key?.fingerprint ?? "";
    this.generate.textContent = this.key ? "Generate a new key" : "Generate key";
  }

  private showError(text: string) {
    this.error.textContent = text;
    if (text) this.box.setAttribute("aria-invalid", "true");
    else this.box.removeAttribute("aria-invalid");
  }

  private async makeKey() {
    if (
      this.saved &&
      this.key === this.saved &&
      !confirm("Replace this entry's SSH key with a new one? The old key is gone once you save.")
    )
      return;
    this.generate.disabled = true;
    try {
      this.key = await generateSshKey();
      this.box.value = "";
      this.showError("");
      this.show("A new Ed25519 key, made in this browser. Save to keep it.");
    } catch (err) {
      this.showError(`This browser cannot make the key: ${message(err)}`);
    } finally {
      this.generate.disabled = false;
    }
  }

  private parse(text: string): Promise<SshKey> {
    if (this.read?.text !== text) {
      const key = importSshKey(text);
      key.catch(() => undefined);
      this.read = { text, key };
    }
    return this.read.key;
  }

  /**
   * Reads the pasted text. A key read replaces the form's key and leaves the box (the private half
   * is not shown here); one that cannot be read stays, with the reason under it.
   */
  private async importText(): Promise<boolean> {
    const text = this.box.value;
    if (!text.trim()) {
      this.showError("");
      return true;
    }
    try {
      const key = await this.parse(text);
      // Read twice (on leaving the box, then on Save): the first read to finish took it.
      if (this.key === key) return true;
      if (this.box.value !== text) return false;
      this.key = key;
      this.box.value = "";
      this.showError("");
      this.show("Key imported. Save to keep it.");
      return true;
    } catch (err) {
      if (this.box.value === text) this.showError(message(err));
      return false;
    }
  }

  /** A chosen file is read as if pasted: a bad one stays in the box with its reason. */
  private async importFile() {
    const file = this.file.files?.[0];
    this.file.value = "";
    if (!file) return;
    if (file.size > MAX_FILE) {
      this.showError(`${file.name} is too large to be an SSH key file`);
      return;
    }
    this.box.value = await file.text();
    if (!(await this.importText()) && this.error.textContent)
      this.showError(`${file.name}: ${this.error.textContent}`);
  }

  /**
   * The key to save, or nothing (the reason shown) when the box holds a key that cannot be read or
   * there is no key at all.
   */
  async take(): Promise<SshKey | undefined> {
    if (this.box.value.trim() && !(await this.importText())) return undefined;
    if (!this.key) this.showError("Generate a key, or import one, before saving.");
    return this.key;
  }

  /** Puts the cursor where the problem is. */
  focus() {
    this.box.focus();
  }

  /** For the form's unsaved-changes check. */
  state(): string {
    return JSON.stringify([this.key?.fingerprint ?? "", this.box.value]);
  }
}
