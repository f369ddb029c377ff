/** Contacts' keys: your own fingerprint, and a contact's checked against this device's pin. */
import { ApiClient, ApiError } from "../api";
import { checkContactKey, type CheckedKey } from "../contact-keys";
import { openDb } from "../db";
import { currentSession } from "../session";
import { fingerprint, TrustStore, type KeyPurpose } from "../trust";
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
    own.textContent = e instanceof ApiError && e.status === 404 ? "You have no sharing key yet." : `Cannot load it: ${e instanceof Error ? e.message : String(e)}`;
  }

  let shown: { email: string; purpose: KeyPurpose; checked: CheckedKey } | null = null;
  const STATUS = {
    new: (email: string) => `First key seen for ${email}: now pinned on this device. Compare the fingerprint with them once.`,
    ok: (email: string) => `This is the key pinned for ${email}.`,
    changed: (email: string) => `Warning: this is not the key pinned for ${email}.`,
  };

  function show(email: string, purpose: KeyPurpose, checked: CheckedKey) {
    shown = { email, purpose, checked };
    $("result").hidden = false;
    $("result").dataset.status = checked.pin.status;
    $("result-status").textContent = STATUS[checked.pin.status](email);
    $("result-fingerprint").textContent = checked.pin.fingerprint;
    $("changed").hidden = checked.pin.status !== "changed";
    $("changed-text").textContent =
      checked.pin.status === "changed"
        ? `The server now gives a different key for ${email}. Pinned: ${checked.pin.pinned}. This device will not share with or invite ${email} with the new key until you compare its fingerprint with them. If they did not get a new device or reset their keys, someone may be trying to read what you share.`
        : "";
  }

  const form = $("check-form") as HTMLFormElement;
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    $("check-error").textContent = "";
    $("result").hidden = true;
    const email = input("contact-email").value.trim();
    const purpose = ($("contact-purpose") as HTMLSelectElement).value as KeyPurpose;
    checkContactKey(api, trust, email, purpose)
      .then((checked) => show(email, purpose, checked))
      .catch((e: unknown) => {
        $("check-error").textContent = e instanceof ApiError && e.status === 404 ? `${email} has no sharing key yet.` : `Cannot check: ${e instanceof Error ? e.message : String(e)}`;
      });
  });
  $("accept").addEventListener("click", () => {
    if (!shown) return;
    const { email, purpose, checked } = shown;
    void trust.acceptKey(email, purpose, checked.jwk).then(() => show(email, purpose, { jwk: checked.jwk, pin: { status: "ok", fingerprint: checked.pin.fingerprint } }));
  });
  ($("check") as HTMLButtonElement).disabled = false;
  document.body.dataset.ready = "true";
}
