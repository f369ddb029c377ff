/**
 * /security: account 2FA (spec "Account 2FA"). Enrol shows a QR code of the otpauth URI (drawn
 * here with uqr, on a canvas), the secret for typing in, and the recovery codes, which the server
 * shows once: they can be downloaded before they leave the page. A right code confirms the
 * enrolment; disabling needs a current code (or a recovery code).
 */
import { encode } from "uqr";
import type { TwoFactorStatus } from "../../../core/api";
import type { AppContext } from "../shell/context";
import { download, el, errorText, formatTime } from "../../../core/ui";

/** The QR code as a canvas of whole-pixel modules with the 4-module quiet zone (ISO/IEC 18004). */
export function qrCanvas(text: string, label: string, scale = 5): HTMLCanvasElement {
  const qr = encode(text, { ecc: "M", border: 4 });
  const canvas = el("canvas", {
    width: qr.size * scale,
    height: qr.size * scale,
    role: "img",
    "aria-label": label,
  });
  const ctx = canvas.getContext("2d")!;
  ctx.fillStyle = "#fff";
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = "#000";
  qr.data.forEach((row, y) =>
    row.forEach((dark, x) => dark && ctx.fillRect(x * scale, y * scale, scale, scale)),
  );
  return canvas;
}

const CODE = /^\s*(\d{6,8}|[A-Za-z0-9-]{6,64})\s*$/;

export function mount(root: HTMLElement, app: AppContext): () => void {
  let gone = false;
  const status = el("div", { id: "twofa-status" });
  const panel = el("div");
  root.classList.add("section");
  root.replaceChildren(
    el("h1", {}, "Security"),
    el(
      "section",
      { "aria-labelledby": "twofa-heading" },
      el("h2", { id: "twofa-heading" }, "Two-factor authentication"),
      status,
      panel,
    ),
  );

  function codeForm(
    id: string,
    label: string,
    submit: string,
    onCode: (code: string) => Promise<void>,
  ) {
    const input = el("input", {
      id,
      inputMode: "numeric",
      autocomplete: "one-time-code",
      maxLength: 64,
    });
    const error = el("p", { id: `${id}-error`, className: "error", role: "alert" });
    const button = el("button", { type: "submit" }, submit);
    const form = el(
      "form",
      {},
      el("label", { htmlFor: id }, label),
      input,
      el("div", { className: "row" }, button),
      error,
    );
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      error.textContent = "";
      const code = input.value.replace(/\s/g, "");
      if (!CODE.test(code)) {
        error.textContent = "Enter the 6-digit code from your authenticator app";
        return;
      }
      button.disabled = true;
      onCode(code)
        .catch((err: unknown) => {
          error.textContent = errorText(err);
          input.select();
        })
        .finally(() => (button.disabled = false));
    });
    return form;
  }

  function showStatus(s: TwoFactorStatus) {
    status.replaceChildren(
      el(
        "p",
        { id: "twofa-state", "data-enrolled": String(s.enrolled) },
        s.enrolled
          ? `On since ${formatTime(s.enrolledAt)} · ${s.recoveryCodesRemaining} recovery codes left`
          : s.pending
            ? "Enrolment started, not yet confirmed"
            : "Off",
      ),
    );
  }

  function showEnrolment(e: { qrCodeUri: string; secret: string; recoveryCodes: string[] }) {
    const codes = el(
      "ol",
      { id: "recovery-codes", className: "codes" },
      ...e.recoveryCodes.map((c) => el("li", {}, c)),
    );
    const save = el(
      "button",
      { type: "button", className: "secondary" },
      "Download recovery codes",
    );
    save.addEventListener("click", () =>
      download(
        "credential-vault-recovery-codes.txt",
        `Credential vault recovery codes for ${app.session.email ?? app.session.userId}\nEach code works once.\n\n${e.recoveryCodes.join("\n")}\n`,
      ),
    );
    panel.replaceChildren(
      el("p", {}, "Scan this code with your authenticator app, then enter the code it shows."),
      qrCanvas(e.qrCodeUri, "QR code for your authenticator app"),
      el(
        "p",
        { className: "muted" },
        "Cannot scan? Enter this key: ",
        el("code", { id: "twofa-secret" }, e.secret),
      ),
      el("h3", {}, "Recovery codes"),
      el(
        "p",
        { className: "hint" },
        "Shown only now. Keep them somewhere safe: each one lets you in once if you lose the authenticator.",
      ),
      codes,
      save,
      codeForm("twofa-code", "Code from the app", "Confirm", async (code) => {
        await app.api.twoFactorVerify(code);
        app.toast("Two-factor authentication is on");
        await render();
      }),
    );
  }

  async function render() {
    const s = await app.api.twoFactorStatus();
    if (gone) return;
    showStatus(s);
    if (s.enrolled) {
      panel.replaceChildren(
        codeForm(
          "twofa-disable-code",
          "Code from the app (or a recovery code) to turn 2FA off",
          "Turn off 2FA",
          async (code) => {
            await app.api.twoFactorDisable(code);
            app.toast("Two-factor authentication is off");
            await render();
          },
        ),
      );
      return;
    }
    const start = el(
      "button",
      { type: "button", id: "twofa-enrol" },
      s.pending ? "Start again" : "Turn on 2FA",
    );
    const error = el("p", { className: "error", role: "alert" });
    start.addEventListener("click", () => {
      start.disabled = true;
      app.api
        .twoFactorEnroll()
        .then(showEnrolment)
        .catch((err: unknown) => {
          start.disabled = false;
          error.textContent = errorText(err);
        });
    });
    panel.replaceChildren(
      el(
        "p",
        { className: "muted" },
        "Ask for a code from an authenticator app as well as your sign-in.",
      ),
      start,
      error,
    );
  }

  void render().catch((err: unknown) =>
    status.replaceChildren(
      el("p", { className: "error" }, `Cannot load 2FA status: ${errorText(err)}`),
    ),
  );
  return () => {
    gone = true;
  };
}
