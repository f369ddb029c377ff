/**
 * An entry's passkeys in its detail: the site (rp id), the account and when each was made, with
 * Delete. The private key never reaches the page's DOM: only these three facts are drawn.
 */
import type { EntrySecrets } from "../crypto";
import { el } from "../pages/common";
import type { StoredPasskey } from "../passkeys/stored";
import { formatTime } from "../ui";

/**
 * The rows for the detail's field list; `remove` (absent on a read-only shared entry) re-seals the
 * entry without the passkey, after the person confirms.
 */
export function passkeyRows(s: EntrySecrets, remove?: (p: StoredPasskey) => Promise<void>): HTMLElement[] {
  const keys = s.passkeys ?? [];
  if (!keys.length) return [];
  const list = el("ul", { className: "passkeys" });
  for (const p of keys) {
    const who = p.user_name || p.display_name || "(no user name)";
    const item = el(
      "li",
      {},
      el("span", { className: "passkey-rp", textContent: p.rp_name && p.rp_name !== p.rp_id ? `${p.rp_name} (${p.rp_id})` : p.rp_id }),
      " · ",
      el("span", { className: "passkey-user", textContent: who }),
      " · ",
      el("span", { className: "passkey-created", textContent: `created ${formatTime(p.created_at)}` }),
    );
    if (remove) {
      const del = el("button", { type: "button", className: "secondary danger", textContent: "Delete" });
      del.setAttribute("aria-label", `Delete the passkey of ${who} on ${p.rp_id}`);
      del.addEventListener("click", () => {
        if (!confirm(`Delete the passkey of ${who} on ${p.rp_id}? You will no longer sign in to ${p.rp_id} with it from this vault.`)) return;
        del.disabled = true;
        void remove(p).finally(() => (del.disabled = false));
      });
      item.append(" ", del);
    }
    list.append(item);
  }
  return [el("dt", { textContent: keys.length === 1 ? "Passkey" : "Passkeys" }), el("dd", { className: "value", dataset: { field: "passkeys" } }, list), el("dd", { className: "field-actions" })];
}
