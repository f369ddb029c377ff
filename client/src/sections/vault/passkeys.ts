/**
 * An entry's passkeys in its detail: the site (rp id), the account and when each was made, with
 * Delete. The private key never reaches the page's DOM: only these three facts are drawn. An entry
 * with none, of a site the registry says offers passkeys, says so instead.
 */
import type { EntrySecrets } from "../../../../core/crypto";
import { el } from "../../pages/common";
import { httpsUrl, type PasskeySite, type PasskeySupport } from "./passkey-sites";
import type { StoredPasskey } from "../../../../core/passkeys";
import { formatTime } from "../../../../core/ui";

/**
 * The rows for the detail's field list; `remove` (absent on a read-only shared entry) re-seals the
 * entry without the passkey, after the person confirms.
 */
export function passkeyRows(
  s: EntrySecrets,
  remove?: (p: StoredPasskey) => Promise<void>,
): HTMLElement[] {
  const keys = s.passkeys ?? [];
  if (!keys.length) return [];
  const list = el("ul", { className: "passkeys" });
  for (const p of keys) {
    const who = p.user_name || p.display_name || "(no user name)";
    const item = el(
      "li",
      {},
      el("span", {
        className: "passkey-rp",
        textContent: p.rp_name && p.rp_name !== p.rp_id ? `${p.rp_name} (${p.rp_id})` : p.rp_id,
      }),
      " · ",
      el("span", { className: "passkey-user", textContent: who }),
      " · ",
      el("span", {
        className: "passkey-created",
        textContent: `created ${formatTime(p.created_at)}`,
      }),
    );
    if (remove) {
      const del = el("button", {
        type: "button",
        className: "secondary danger",
        textContent: "Delete",
      });
      del.setAttribute("aria-label", `Delete the passkey of ${who} on ${p.rp_id}`);
      del.addEventListener("click", () => {
        if (
          !confirm(
            `Delete the passkey of ${who} on ${p.rp_id}? You will no longer sign in to ${p.rp_id} with it from this vault.`,
          )
        )
          return;
        del.disabled = true;
        void remove(p).finally(() => (del.disabled = false));
      });
      item.append(" ", del);
    }
    list.append(item);
  }
  return [
    el("dt", { textContent: keys.length === 1 ? "Passkey" : "Passkeys" }),
    el("dd", { className: "value", dataset: { field: "passkeys" } }, list),
    el("dd", { className: "field-actions" }),
  ];
}

const SUPPORT_TEXT: Record<PasskeySupport, string> = {
  "sign-in": "This site supports passkeys: you can sign in with one instead of this password.",
  "sign-in-and-sign-up":
    "This site supports passkeys: you can sign in with one instead of this password.",
  "mfa-only": "This site supports passkeys as a second step after the password.",
};

/**
 * The registry's hint for an entry with no passkey of a site that offers them: where to add one
 * (an https address only, opened with no opener or referrer), and that the extension saves it.
 */
export function passkeyHintRows(site: PasskeySite): HTMLElement[] {
  const note = el("p", {
    className: "passkey-hint-text",
    textContent: SUPPORT_TEXT[site.passkey_support_type],
  });
  const dd = el("dd", { className: "passkey-hint", dataset: { field: "passkey-hint" } }, note);
  const url = httpsUrl(site.passkey_setup_url);
  if (url) {
    const a = el("a", {
      href: url,
      target: "_blank",
      rel: "noopener noreferrer",
      textContent: `Add a passkey on ${site.name}`,
    });
    dd.append(el("p", {}, a));
  }
  dd.append(
    el("p", {
      className: "passkey-hint-save",
      textContent:
        "When you add it, the vault's browser extension offers to save the passkey in your vault.",
    }),
  );
  return [el("dt", { textContent: "Passkey" }), dd];
}
