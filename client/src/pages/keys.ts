/** Contacts' keys: your own fingerprint, a contact's checked against this device's pin, and the contacts it knows. */
import { ApiClient, ApiError } from "../../../core/api";
import { checkContactKey, type CheckedKey } from "../keys/contact-keys";
import { openDb } from "../../../core/store";
import { keyBadge } from "../keys/first-use-panel";
import { currentSession } from "../../../core/session";
import { fingerprint, TrustStore } from "../../../core/crypto";
import { el } from "../../../core/ui";
import { $, input } from "./common";

const db = await openDb();
const current = await currentSession(db).finally(() => db.close());
if (!current) location.replace("/");
else await main(current.session.userId);

async function main(userId: string) {
  const api = new ApiClient();
  const trust = await TrustStore.open(userId);
  const own = $("own-fingerprint");
  try {
    own.textContent = await fingerprint((await api.sharingKey()).publicKey);
  } catch (e) {
    own.textContent =
      e instanceof ApiError && e.status === 404
        ? "You have no sharing key yet."
        : `Cannot load it: ${e instanceof Error ? e.message : String(e)}`;
  }

  let shown: { email: string; checked: CheckedKey } | null = null;
  const STATUS = {
    new: (email: string) =>
      `First key seen for ${email}: now pinned on this device, not compared yet. Compare the fingerprint with them once.`,
    ok: (email: string, compared: boolean) =>
      compared
        ? `This is the key pinned for ${email}; you compared it with them.`
        : `This is the key pinned for ${email}, not compared yet.`,
    changed: (email: string) => `Warning: this is not the key pinned for ${email}.`,
  };

  async function listContacts() {
    const known = await trust.contacts();
    $("known-rows").replaceChildren(
      ...[...known.values()].map((c) =>
        el(
          "tr",
          {},
          el("td", {}, c.email),
          el("td", { className: "fingerprint" }, c.fingerprint),
          el("td", {}, keyBadge(trust, known, c.email, refresh) ?? ""),
        ),
      ),
    );
    $("known-empty").hidden = known.size > 0;
  }

  function show(email: string, checked: CheckedKey) {
    shown = { email, checked };
    const { status, compared } = checked.pin;
    $("result").hidden = false;
    $("result").dataset.status = status;
    $("result").dataset.compared = String(compared);
    $("result-status").textContent =
      status === "ok" ? STATUS.ok(email, compared) : STATUS[status](email);
    $("result-fingerprint").textContent = checked.pin.fingerprint;
    $("mark-compared").hidden = status === "changed" || compared;
    $("changed").hidden = status !== "changed";
    $("changed-text").textContent =
      status === "changed"
        ? `The server now gives a different key for ${email}. Pinned: ${checked.pin.pinned}. This device will not share with, invite or name ${email} with the new key until you compare its fingerprint with them. If they did not get a new device or reset their keys, someone may be trying to read what you share.`
        : "";
  }

  /** Shows the checked key again from the pin (after a comparison made here or in a row below). */
  async function refresh() {
    await listContacts();
    if (!shown) return;
    const { email, checked } = shown;
    show(email, { jwk: checked.jwk, pin: await trust.peekKey(email, checked.jwk) });
  }

  const form = $("check-form") as HTMLFormElement;
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    $("check-error").textContent = "";
    $("result").hidden = true;
    const email = input("contact-email").value.trim();
    checkContactKey(api, trust, email)
      .then((checked) => show(email, checked))
      .then(listContacts)
      .catch((e: unknown) => {
        $("check-error").textContent =
          e instanceof ApiError && e.status === 404
            ? `${email} has no sharing key yet.`
            : `Cannot check: ${e instanceof Error ? e.message : String(e)}`;
      });
  });
  $("mark-compared").addEventListener("click", () => {
    if (shown) void trust.markCompared(shown.email, shown.checked.pin.fingerprint).then(refresh);
  });
  $("accept").addEventListener("click", () => {
    if (shown) void trust.acceptKey(shown.email, shown.checked.jwk, true).then(refresh);
  });
  await listContacts();
  ($("check") as HTMLButtonElement).disabled = false;
  document.body.dataset.ready = "true";
}
