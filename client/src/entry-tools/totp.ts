/**
 * Entry TOTP: add a secret (typed, a pasted otpauth:// URI, or a QR image decoded here with jsQR),
 * then live codes with the seconds left, and copy. The server holds the zero-trust form only
 * (secret wrapped by the vault key); the last configuration seen is kept in the local store, so
 * codes keep coming offline.
 */
import jsQR from "jsqr";
import { ApiError, OfflineError, type TotpConfig } from "../../../core/api";
import type { EntryContext } from "../shell/context";
import {
  hmacKeyOf,
  normalizeAlgorithm,
  openTotpSecret,
  parseTotpInput,
  sealTotpSecret,
  totpAt,
  TotpInputError,
} from "../../../src/kernel/totp";
import { el, errorText } from "../../../core/ui";

/** Decodes the first QR code in an image file; null when the image holds none. */
export async function decodeQrFile(file: Blob): Promise<string | null> {
  const bitmap = await createImageBitmap(file);
  const canvas = document.createElement("canvas");
  canvas.width = bitmap.width;
  canvas.height = bitmap.height;
  const ctx = canvas.getContext("2d", { willReadFrequently: true });
  if (!ctx) return null;
  ctx.drawImage(bitmap, 0, 0);
  const { data, width, height } = ctx.getImageData(0, 0, canvas.width, canvas.height);
  return jsQR(data, width, height, { inversionAttempts: "attemptBoth" })?.data ?? null;
}

const cacheKey = (entry: EntryContext) => `totp:${entry.app.session.userId}:${entry.id}`;

export function mount(root: HTMLElement, entry: EntryContext): () => void {
  const { api, keys, db, toast } = entry.app;
  let timer: ReturnType<typeof setInterval> | undefined;
  let stopped = false;

  const body = el("div", { id: "totp" });
  root.replaceChildren(body);

  async function load(): Promise<TotpConfig | null> {
    try {
      const cfg = await api.totp(entry.id);
      await db.setMeta(cacheKey(entry), cfg);
      return cfg;
    } catch (err) {
      // Offline, or an entry not yet synced: the last configuration this browser saw.
      if (err instanceof OfflineError || (err instanceof ApiError && err.status === 404))
        return (await db.meta<TotpConfig>(cacheKey(entry))) ?? null;
      throw err;
    }
  }

  function showCodes(key: CryptoKey, digits: number, period: number, source: string) {
    const code = el("output", { className: "totp-code", "aria-label": "Current code" });
    const left = el("span", { className: "muted totp-left" });
    const bar = el("progress", {
      max: period,
      "aria-label": "Seconds left",
    }) as HTMLProgressElement;
    const copy = el("button", { type: "button", className: "secondary" }, "Copy code");
    const remove = el("button", { type: "button", className: "secondary" }, "Remove TOTP");
    const actions = el("div", { className: "row" }, copy);
    if (source === "server") actions.append(remove);
    body.replaceChildren(el("p", {}, code, " ", left), bar, actions);
    const tick = async () => {
      const now = await totpAt(key, Date.now(), digits, period);
      if (stopped) return;
      code.textContent = now.code.replace(/^(\d{3})(\d+)$/, "$1 $2");
      code.dataset.code = now.code;
      left.textContent = `${now.remaining} s left`;
      bar.value = now.remaining;
    };
    void tick();
    clearInterval(timer);
    timer = setInterval(() => void tick(), 1000);
    copy.addEventListener("click", () => {
      void (async () => {
        const now = await totpAt(key, Date.now(), digits, period);
        await navigator.clipboard.writeText(now.code);
        toast(`Code copied (${now.remaining} s left)`);
      })().catch((err: unknown) => toast(`Cannot copy: ${errorText(err)}`));
    });
    remove.addEventListener("click", () => {
      if (!confirm(`Remove the TOTP secret of ${entry.entry.name}?`)) return;
      void api
        .deleteTotp(entry.id)
        .then(async () => {
          await db.setMeta(cacheKey(entry), { hasTotp: false });
          toast("TOTP secret removed");
          await render();
        })
        .catch((err: unknown) => toast(`Cannot remove: ${errorText(err)}`));
    });
  }

  function showForm() {
    clearInterval(timer);
    const secret = el("input", { id: "totp-secret", autocomplete: "off", spellcheck: false });
    const qr = el("input", { id: "totp-qr", type: "file", accept: "image/*" });
    const error = el("p", { id: "totp-error", className: "error", role: "alert" });
    const save = el("button", { type: "submit" }, "Add TOTP");
    const form = el(
      "form",
      { id: "totp-form" },
      el("label", { htmlFor: "totp-secret" }, "Secret or otpauth:// URI"),
      secret,
      el("label", { htmlFor: "totp-qr" }, "Or a QR code image"),
      qr,
      el("div", { className: "row" }, save),
      error,
    );
    body.replaceChildren(
      el(
        "p",
        { className: "muted" },
        "No TOTP secret yet. It is encrypted on this device before it is stored.",
      ),
      form,
    );

    qr.addEventListener("change", () => {
      const file = qr.files?.[0];
      if (!file) return;
      error.textContent = "";
      void decodeQrFile(file)
        .then((text) => {
          if (text === null) error.textContent = "No QR code was found in that image";
          else secret.value = text;
        })
        .catch(() => (error.textContent = "That file is not an image this browser can read"));
    });

    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      error.textContent = "";
      let parsed;
      try {
        parsed = parseTotpInput(secret.value);
      } catch (err) {
        error.textContent = err instanceof TotpInputError ? err.message : errorText(err);
        return;
      }
      save.disabled = true;
      void (async () => {
        const sealed = await sealTotpSecret(keys.vaultKey, parsed);
        const cfg = {
          secretEncrypted: sealed,
          algorithm: parsed.algorithm,
          digits: parsed.digits,
          period: parsed.period,
        };
        await api.setTotp(entry.id, cfg);
        await db.setMeta(cacheKey(entry), { hasTotp: true, zeroTrust: true, ...cfg });
        toast("TOTP secret added");
        await render();
      })().catch((err: unknown) => {
        save.disabled = false;
        error.textContent =
          err instanceof OfflineError
            ? "You are offline: adding a TOTP secret needs the server"
            : err instanceof ApiError && err.status === 404
              ? "This entry is not on the server yet: sync, then add the secret"
              : errorText(err);
      });
    });
  }

  async function render() {
    const cfg = await load();
    if (stopped) return;
    if (cfg?.hasTotp && cfg.secretEncrypted) {
      const algorithm = normalizeAlgorithm(cfg.algorithm ?? "SHA-1") ?? "SHA-1";
      showCodes(
        await openTotpSecret(keys.vaultKey, cfg.secretEncrypted, algorithm),
        cfg.digits ?? 6,
        cfg.period ?? 30,
        "server",
      );
      return;
    }
    // A secret kept in the entry's own encrypted fields (typed in the entry form or imported).
    if (entry.fields.totp) {
      try {
        const s = parseTotpInput(entry.fields.totp);
        showCodes(await hmacKeyOf(s), s.digits, s.period, "entry");
        return;
      } catch {
        // Not a usable secret: offer to add one.
      }
    }
    showForm();
  }

  void render().catch((err: unknown) => {
    body.replaceChildren(el("p", { className: "error" }, `TOTP unavailable: ${errorText(err)}`));
  });

  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
