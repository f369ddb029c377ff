/**
 * The dead man's switch (/dead-man-switch): settings, status and days left, check-in, recipients
 * (each gets the vault key wrapped for their pinned sharing key, like an emergency contact), the
 * switch's recent log, and, for a recipient, the transfers released to them and their claim.
 */
import { contactCell } from "../keys/first-use-panel";
import { el, scope } from "../pages/common";
import {
  deadManSwitchApi,
  type SwitchSettings,
  type SwitchStatus,
  type Transfer,
} from "../../../core/api";
import { explain, RecoveryInputError, vaultKeyFor } from "../keys/recovery-keys";
import { unwrapVaultKey, type KnownContact } from "../../../core/crypto";
import { ownSharingKey } from "../keys/sharing-key";
import type { AppContext } from "../shell/context";
import { DMS_MARKUP } from "./dead-man-switch-markup";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DAYS = { min: 7, max: 365 };
const STATUS: Record<string, string> = {
  idle: "On: counting down",
  warning: "On: the trigger is near, check in",
  triggered: "Triggered: your recipients were released",
  disabled: "Off",
};
const LOG: Record<string, string> = {
  created: "Switch created",
  updated: "Settings changed",
  check_in: "Checked in",
  sign_in: "Signed in (counts as a check-in)",
  reminder_sent: "Reminder sent",
  triggered: "Triggered",
  released: "Released to recipients",
  recipient_added: "Recipient added",
  recipient_removed: "Recipient removed",
  key_retrieved: "A recipient retrieved their key",
};

/** The form's settings, or the first problem with them in words. */
export function readSettings(f: {
  enabled: boolean;
  days: string;
  notifyDays: string;
  email: boolean;
  push: boolean;
  confirm: boolean;
  phrase: string;
}): Partial<SwitchSettings> | string {
  const days = Number(f.days);
  if (f.days.trim() === "" || !Number.isInteger(days) || days < DAYS.min || days > DAYS.max)
    return `Days of inactivity must be a whole number from ${DAYS.min} to ${DAYS.max}`;
  const parts = f.notifyDays.split(/[\s,]+/).filter(Boolean);
  const notify = parts.map(Number);
  if (notify.some((d, i) => !/^\d+$/.test(parts[i]!) || d < 1))
    return "Reminder days must be whole numbers of at least 1, separated by commas";
  if (notify.some((d) => d >= days))
    return `Each reminder day must be fewer than the ${days} days of inactivity`;
  if (new Set(notify).size !== notify.length) return "Each reminder day may appear only once";
  if (notify.length > 10) return "At most 10 reminder days";
  const via = [...(f.email ? ["email" as const] : []), ...(f.push ? ["push" as const] : [])];
  if (via.length === 0) return "Choose at least one way to be reminded";
  return {
    enabled: f.enabled,
    inactivity_days: days,
    notify_at_days: notify,
    notify_via: via,
    confirmation_required: f.confirm,
    ...(f.phrase ? { secret_phrase: f.phrase } : {}),
  };
}

export async function mount(root: HTMLElement, app: AppContext) {
  const { $, input } = scope(root);
  const api = deadManSwitchApi(app.api);
  root.innerHTML = DMS_MARKUP;
  let gone = false;
  const cell = (text: string) => el("td", { textContent: text });
  const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : "—");
  const check = (id: string) => (input(id) as HTMLInputElement).checked;
  const setCheck = (id: string, v: boolean) => ((input(id) as HTMLInputElement).checked = v);

  function paint(s: SwitchStatus, known: Map<string, KnownContact>) {
    const sw = s.switch;
    $("dms-check-in").hidden = !sw || !sw.enabled;
    $("dms-delete").hidden = !sw;
    if (!sw) {
      $("dms-status").textContent =
        "No dead man's switch is set up. Save the settings below to start one.";
      $("dms-days").textContent = "";
    } else {
      $("dms-status").textContent = STATUS[sw.status] ?? sw.status;
      $("dms-status").dataset.status = sw.status;
      const left = s.days_remaining;
      $("dms-days").textContent =
        sw.enabled && left !== null
          ? `${left} ${left === 1 ? "day" : "days"} left · triggers ${when(sw.next_trigger_at)} · last check-in ${when(sw.last_check_in)}`
          : `Last check-in ${when(sw.last_check_in)}`;
      $("dms-days").dataset.days = left === null ? "" : String(left);
      setCheck("dms-enabled", sw.enabled);
      input("dms-days-input").value = String(sw.inactivity_days);
      input("dms-notify-days").value = sw.notify_at_days.join(", ");
      setCheck("dms-via-email", sw.notify_via.includes("email"));
      setCheck("dms-via-push", sw.notify_via.includes("push"));
      setCheck("dms-confirm", sw.confirmation_required);
    }
    $("dms-recipient-rows").replaceChildren(
      ...s.recipients.map((r) => {
        const remove = el("button", {
          type: "button",
          className: "danger",
          textContent: "Remove",
          onclick: () =>
            void act(
              () => api.removeRecipient(r.id),
              `Removed ${r.recipient_email}`,
              "Removing the recipient",
              "dms-error",
            ),
        });
        remove.setAttribute("aria-label", `Remove ${r.recipient_email}`);
        return el(
          "tr",
          { dataset: { recipient: r.id } },
          contactCell(app.trust, known, r.recipient_email, () => void render()),
          cell(r.recipient_name ?? ""),
          cell(r.status.replace("_", " ")),
          el("td", {}, remove),
        );
      }),
    );
    $("dms-recipients-empty").hidden = s.recipients.length > 0;
    $("dms-log").replaceChildren(
      ...s.recent_logs.map((l) =>
        el("li", { textContent: `${LOG[l.action] ?? l.action} · ${when(l.timestamp)}` }),
      ),
    );
  }

  function paintTransfers(transfers: Transfer[]) {
    $("dms-transfer-rows").replaceChildren(
      ...transfers.map((t) => {
        const actions = el("td");
        if (t.status === "released") {
          const phrase = el("input", { type: "password", autocomplete: "off" });
          phrase.setAttribute("aria-label", `Secret phrase for ${t.owner_id}`);
          const claim = el("button", {
            type: "button",
            textContent: "Claim",
            onclick: () => void claimTransfer(t, phrase.value),
          });
          claim.setAttribute("aria-label", `Claim from ${t.owner_id}`);
          if (t.requires_secret_phrase) actions.append(phrase);
          actions.append(claim);
        }
        return el(
          "tr",
          { dataset: { transfer: t.id } },
          cell(t.recipient_name ? `${t.owner_id} (to ${t.recipient_name})` : t.owner_id),
          cell(t.status.replace("_", " ")),
          cell(when(t.released_at)),
          actions,
        );
      }),
    );
    $("dms-transfers-empty").hidden = transfers.length > 0;
  }

  async function render() {
    try {
      const [status, { transfers }, known] = await Promise.all([
        api.status(),
        api.transfers(),
        app.trust.contacts(),
      ]);
      if (gone) return;
      paint(status, known);
      paintTransfers(transfers);
    } catch (e) {
      $("dms-error").textContent = explain(e, "Loading the switch");
    }
  }

  async function act(run: () => Promise<unknown>, done: string, what: string, errorId: string) {
    $(errorId).textContent = "";
    try {
      await run();
      app.toast(done);
    } catch (e) {
      $(errorId).textContent = explain(e, what);
    }
    await render();
  }

  $("dms-check-in").addEventListener(
    "click",
    () =>
      void act(
        () => api.checkIn(),
        "Checked in: the countdown starts again",
        "Checking in",
        "dms-error",
      ),
  );

  ($("dms-form") as HTMLFormElement).addEventListener("submit", (ev) => {
    ev.preventDefault();
    $("dms-form-error").textContent = "";
    const settings = readSettings({
      enabled: check("dms-enabled"),
      days: input("dms-days-input").value,
      notifyDays: input("dms-notify-days").value,
      email: check("dms-via-email"),
      push: check("dms-via-push"),
      confirm: check("dms-confirm"),
      phrase: input("dms-phrase").value,
    });
    if (typeof settings === "string") {
      $("dms-form-error").textContent = settings;
      return;
    }
    input("dms-phrase").value = "";
    void act(
      () => api.save(settings),
      "Saved the dead man's switch",
      "Saving the switch",
      "dms-form-error",
    );
  });

  $("dms-delete").addEventListener("click", () => {
    if (!confirm("Delete the switch, its recipients and their keys?")) return;
    void act(
      () => api.remove(),
      "Deleted the dead man's switch",
      "Deleting the switch",
      "dms-error",
    );
  });

  ($("dms-recipient-form") as HTMLFormElement).addEventListener("submit", (ev) => {
    ev.preventDefault();
    void addRecipient();
  });

  async function addRecipient() {
    const error = $("dms-r-error");
    error.textContent = "";
    const email = input("dms-r-email").value.trim().toLowerCase();
    const name = input("dms-r-name").value.trim();
    const passphrase = input("dms-r-passphrase").value;
    let problem = "";
    if ($("dms-delete").hidden) problem = "Save the switch's settings first";
    else if (!EMAIL.test(email))
      problem = "Enter the recipient's email address, like name@example.com";
    else if (email === app.session.email?.toLowerCase())
      problem = "You cannot name yourself as a recipient";
    else if (!passphrase)
      problem = "Enter your master passphrase: it wraps your vault key for the recipient";
    if (problem) {
      error.textContent = problem;
      return;
    }
    const submit = $("dms-r-submit") as HTMLButtonElement;
    submit.disabled = true;
    try {
      const wrapped = await vaultKeyFor(app, passphrase, email, { purpose: "dead-man-switch" });
      await api.addRecipient({
        recipient_email: email,
        ...(name ? { recipient_name: name } : {}),
        wrapped_recovery_key: wrapped,
      });
      app.toast(`Added ${email} as a recipient`);
      ($("dms-recipient-form") as HTMLFormElement).reset();
      await render();
    } catch (e) {
      error.textContent = explain(e, "Adding the recipient");
    } finally {
      // What was typed stays after a failure (the form's reset clears it after a success).
      submit.disabled = false;
    }
  }

  /**
   * The released key is opened here with this user's sharing key, bound to the owner it names: a
   * wrap that opens is the owner's vault key, made for this person by the owner's browser.
   */
  async function claimTransfer(t: Transfer, phrase: string) {
    const out = $("dms-transfer-result");
    out.textContent = "";
    try {
      if (t.requires_secret_phrase && !phrase)
        throw new RecoveryInputError("Enter the secret phrase the owner gave you");
      const { privateKey } = await ownSharingKey(app, false);
      if (!privateKey)
        throw new RecoveryInputError(
          "Your sharing key cannot be opened on this device, so the released key cannot be either",
        );
      const claimed = await api.claim(t.id, phrase || undefined);
      await unwrapVaultKey(privateKey, claimed.wrapped_recovery_key, {
        purpose: "dead-man-switch",
        ownerId: claimed.owner_id,
        recipientEmail: app.session.email ?? t.recipient_email,
      });
      out.textContent = `Claimed: the vault key of ${claimed.owner_id} opened with your sharing key.`;
    } catch (e) {
      out.textContent = explain(e, "Claiming");
    }
  }

  // Recipients are named by their sharing key: opening this page makes this user's, so others can name them.
  await ownSharingKey(app, true).catch(
    (e: unknown) => ($("dms-error").textContent = explain(e, "Setting up your sharing key")),
  );
  await render();
  return () => {
    gone = true;
  };
}
