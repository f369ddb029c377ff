/**
 * Emergency access (/emergency, and /emergency/<token> for a mailed invitation). As owner: name a
 * contact (the vault key is wrapped for their pinned sharing key, after the passphrase proves the
 * key), see each contact's state, approve or deny a request, change the waiting period, revoke.
 * As contact: accept, request, and once granted read the owner's vault, decrypted here.
 */
import { fromBase64, toBase64 } from "../../../src/kernel/base64";
import { contactCell } from "../keys/first-use-panel";
import { arriveAtRow, el, scope } from "../pages/common";
import { emergencyApi, type EmergencyContact } from "../../../core/api";
import {
  explain,
  ownerEntries,
  randomSalt,
  RecoveryInputError,
  vaultKeyFor,
  type OwnerEntry,
} from "../keys/recovery-keys";
import { unwrapVaultKey, type KnownContact } from "../../../core/crypto";
import { ownSharingKey } from "../keys/sharing-key";
import type { AppContext } from "../shell/context";
import { EMERGENCY_MARKUP } from "./emergency-markup";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const WAIT_HOURS = { min: 1, max: 720 };

const STATUS: Record<EmergencyContact["status"], string> = {
  pending_invite: "invited",
  active: "active",
  access_requested: "access requested",
  access_granted: "access granted",
  access_denied: "access denied",
  access_expired: "access expired",
  revoked: "revoked",
};

export function waitHoursProblem(raw: string): string {
  const n = Number(raw);
  return raw.trim() !== "" && Number.isInteger(n) && n >= WAIT_HOURS.min && n <= WAIT_HOURS.max
    ? ""
    : `The waiting period must be a whole number of hours from ${WAIT_HOURS.min} to ${WAIT_HOURS.max}`;
}

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : "");

function access(c: EmergencyContact): string {
  if (c.status === "access_requested" && c.grant_at)
    return `granted automatically at ${when(c.grant_at)} unless denied`;
  if (c.status === "access_granted" && c.expires_at) return `until ${when(c.expires_at)}`;
  return "";
}

export async function mount(root: HTMLElement, app: AppContext) {
  const { $, input } = scope(root);
  const api = emergencyApi(app.api);
  const uid = app.session.userId;
  root.innerHTML = EMERGENCY_MARKUP;
  let gone = false;
  let opened: { contactId: string; entries: OwnerEntry[] } | null = null;

  function btn(label: string, aria: string, onClick: () => void, className = "secondary") {
    const b = el("button", { type: "button", className, textContent: label, onclick: onClick });
    b.setAttribute("aria-label", aria);
    return b;
  }
  const cell = (text: string) => el("td", { textContent: text });

  async function act(run: () => Promise<unknown>, done: string, what: string) {
    $("contacts-error").textContent = "";
    try {
      await run();
      app.toast(done);
    } catch (e) {
      $("contacts-error").textContent = explain(e, what);
      app.toast(explain(e, what));
    }
    await render();
  }

  function ownedRow(c: EmergencyContact, known: Map<string, KnownContact>) {
    const actions = el("td");
    if (c.status === "access_requested") {
      actions.append(
        btn(
          "Approve",
          `Approve access for ${c.contact_email}`,
          () =>
            void act(
              () => api.respond(c.id, "approve"),
              `Approved access for ${c.contact_email}`,
              "Approving",
            ),
        ),
        btn(
          "Deny",
          `Deny access for ${c.contact_email}`,
          () =>
            void act(
              () => api.respond(c.id, "deny"),
              `Denied access for ${c.contact_email}`,
              "Denying",
            ),
          "danger",
        ),
      );
    }
    const wait = el("td", { textContent: `${c.wait_hours} h` });
    if (c.status !== "revoked") {
      const hours = el("input", {
        type: "number",
        min: String(WAIT_HOURS.min),
        max: String(WAIT_HOURS.max),
        step: "1",
        value: String(c.wait_hours),
        className: "narrow",
      });
      hours.setAttribute("aria-label", `Waiting period for ${c.contact_email}`);
      const save = btn("Change", `Change waiting period for ${c.contact_email}`, () => {
        const problem = waitHoursProblem(hours.value);
        if (problem) {
          $("contacts-error").textContent = problem;
          return;
        }
        void act(
          () => api.update(c.id, Number(hours.value)),
          `Waiting period for ${c.contact_email} is now ${hours.value} hours`,
          "Changing the waiting period",
        );
      });
      wait.replaceChildren(hours, save);
      actions.append(
        btn(
          "Revoke",
          `Revoke ${c.contact_email}`,
          () => void act(() => api.revoke(c.id), `Revoked ${c.contact_email}`, "Revoking"),
          "danger",
        ),
      );
    }
    return el(
      "tr",
      { dataset: { contact: c.id } },
      contactCell(app.trust, known, c.contact_email, () => void render()),
      cell(STATUS[c.status]),
      wait,
      cell(access(c)),
      actions,
    );
  }

  function contactRow(c: EmergencyContact) {
    const owner = c.owner_email ?? c.owner_id;
    const actions = el("td");
    if (c.status === "pending_invite")
      actions.append(
        btn(
          "Accept",
          `Accept ${owner}'s invitation`,
          () =>
            void act(
              () => api.acceptListed(c.id),
              `You are now an emergency contact of ${owner}`,
              "Accepting the invitation",
            ),
          "",
        ),
      );
    if (c.status === "active")
      actions.append(
        btn(
          "Request access",
          `Request access to ${owner}'s vault`,
          () =>
            void act(
              () => api.request(c.id),
              `Requested access to ${owner}'s vault`,
              "Requesting access",
            ),
        ),
      );
    if (c.status === "access_granted")
      actions.append(btn("Open vault", `Open ${owner}'s vault`, () => void openVault(c), ""));
    return el(
      "tr",
      { dataset: { contact: c.id } },
      cell(owner),
      cell(STATUS[c.status]),
      cell(`${c.wait_hours} h`),
      cell(access(c)),
      actions,
    );
  }

  async function render() {
    try {
      const [{ as_owner, as_contact }, known] = await Promise.all([
        api.list(),
        app.trust.contacts(),
      ]);
      if (gone) return;
      $("contact-rows").replaceChildren(...as_owner.map((c) => ownedRow(c, known)));
      $("contacts-empty").hidden = as_owner.length > 0;
      $("owner-rows").replaceChildren(...as_contact.map(contactRow));
      $("owners-empty").hidden = as_contact.length > 0;
    } catch (e) {
      $("emergency-status").textContent = explain(e, "Loading emergency contacts");
    }
  }

  ($("invite-form") as HTMLFormElement).addEventListener("submit", (ev) => {
    ev.preventDefault();
    void invite();
  });

  async function invite() {
    const error = $("invite-error");
    error.textContent = "";
    const email = input("invite-email").value.trim().toLowerCase();
    const waitRaw = input("invite-wait").value;
    const passphrase = input("invite-passphrase").value;
    let problem = "";
    if (!EMAIL.test(email)) problem = "Enter the contact's email address, like name@example.com";
    else if (email === app.session.email?.toLowerCase())
      problem = "You cannot name yourself as your emergency contact";
    else
      problem =
        waitHoursProblem(waitRaw) ||
        (passphrase ? "" : "Enter your master passphrase: it wraps your vault key for the contact");
    if (problem) {
      error.textContent = problem;
      return;
    }
    const submit = $("invite-submit") as HTMLButtonElement;
    submit.disabled = true;
    try {
      const salt = randomSalt();
      const wrapped = await vaultKeyFor(app, passphrase, email, { purpose: "emergency", salt });
      await api.add({
        email,
        wait_hours: Number(waitRaw),
        wrapped_access_key: wrapped,
        invite_salt: toBase64(salt),
      });
      app.toast(`Invited ${email} as your emergency contact`);
      ($("invite-form") as HTMLFormElement).reset();
      await render();
    } catch (e) {
      error.textContent = explain(e, "Inviting");
    } finally {
      // What was typed stays after a failure (the form's reset clears it after a success).
      submit.disabled = false;
    }
  }

  async function openVault(c: EmergencyContact) {
    const status = $("emergency-status");
    status.textContent = "Opening the vault…";
    try {
      const { privateKey } = await ownSharingKey(app, false);
      if (!privateKey)
        throw new RecoveryInputError(
          "Your sharing key cannot be opened on this device, so the access key cannot be either",
        );
      const key = await api.access(c.id);
      const vaultKey = await unwrapVaultKey(privateKey, key.wrapped_access_key, {
        purpose: "emergency",
        ownerId: c.owner_id,
        recipientEmail: app.session.email ?? c.contact_email,
        salt: fromBase64(key.invite_salt),
      });
      const vault = await api.vault(c.id);
      // The owner the wrap was bound to is the one whose entries are opened: a server naming another fails every entry.
      opened = { contactId: c.id, entries: ownerEntries(vaultKey, c.owner_id, vault.entries) };
      $("owner-vault-heading").textContent =
        `Vault of ${vault.owner_email ?? c.owner_email ?? c.owner_id}`;
      $("owner-entries").replaceChildren(
        ...opened.entries.map((o) =>
          el(
            "li",
            { dataset: { entry: o.entry.id } },
            el("span", { className: "name", textContent: o.entry.name }),
            el("span", { className: "muted", textContent: ` ${o.entry.website ?? ""}` }),
            btn("Reveal", `Reveal ${o.entry.name}`, () => void reveal(o)),
          ),
        ),
      );
      $("owner-entries-empty").hidden = opened.entries.length > 0;
      $("owner-entry").hidden = true;
      $("owner-vault").hidden = false;
      status.textContent = "";
    } catch (e) {
      status.textContent = explain(e, "Opening the vault");
    }
  }

  async function reveal(o: OwnerEntry) {
    try {
      const secrets = await o.open();
      $("owner-entry-heading").textContent = o.entry.name;
      const fields: [string, "username" | "password" | "notes"][] = [
        ["Username", "username"],
        ["Password", "password"],
        ["Notes", "notes"],
      ];
      $("owner-entry-fields").replaceChildren(
        ...fields.flatMap(([label, k]) => [
          el("dt", { textContent: label }),
          el("dd", { textContent: secrets[k] || "—", dataset: { field: k } }),
        ]),
      );
      $("owner-entry").hidden = false;
    } catch (e) {
      app.toast(explain(e, `Opening ${o.entry.name}`));
      $("emergency-status").textContent = explain(e, `Opening ${o.entry.name}`);
    }
  }

  $("hide-owner-entry").addEventListener("click", () => ($("owner-entry").hidden = true));
  $("close-owner-vault").addEventListener("click", () => {
    opened = null;
    $("owner-vault").hidden = true;
  });

  // /emergency/<token>: the mailed invitation. The token goes to the server once and leaves the address bar.
  const token = app.subpath.replace(/^\//, "");
  if (token) {
    $("accept-card").hidden = false;
    $("accept-invite").addEventListener("click", () => {
      void (async () => {
        $("accept-error").textContent = "";
        try {
          const { contact } = await api.accept(token);
          app.toast(
            `You are now an emergency contact of ${contact.owner_email ?? "the vault's owner"}`,
          );
          app.navigate("/emergency");
        } catch (e) {
          $("accept-error").textContent = explain(e, "Accepting the invitation");
        }
      })();
    });
  }

  // A contact's own sharing key must exist before anyone can name them: opening this page makes it.
  await ownSharingKey(app, true).catch(
    (e: unknown) => ($("emergency-status").textContent = explain(e, "Setting up your sharing key")),
  );
  await render();
  // Reached from the notification of an invitation (/emergency?invitation=<id>).
  arriveAtRow(root, "invitation", "#owner-rows", "data-contact");
  // The other side accepted, asked, answered or revoked (or the wait ran out): read the records again.
  const stopLive = app.onLive("emergency", render);
  return () => {
    stopLive();
    gone = true;
    opened = null;
  };
}
