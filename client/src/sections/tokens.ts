/**
 * Machine tokens (/tokens; docs/cli.md, "Tokens for machines and agents"): read-only tokens for a
 * CI job or an AI agent, each reading one shared vault. Made here (the vault key wrapped in this
 * browser under a key only the token's secret derives; the token shown once), listed with expiry
 * and last use, revoked, and every read with the token's name and the reason it gave.
 */
import {
  makeVaultToken,
  tokensApi,
  type MachineToken,
  type OpenedVault,
  type TokenRead,
} from "../../../core/vaults";
import type { AppContext } from "../shell/context";
import { places, vaultMe } from "../vaults/me";
import { el, errorText, formatTime } from "../../../core/ui";

const STATE: Record<MachineToken["state"], string> = {
  active: "Active",
  expired: "Expired",
  revoked: "Revoked",
};
const WHY: Record<string, string> = {
  owner: "by you",
  key_rotated: "the vault's key changed: make a new token",
  member_left: "you left the vault",
};
const EXPIRY = [
  ["1", "1 day"],
  ["7", "7 days"],
  ["30", "30 days"],
  ["90", "90 days"],
  ["365", "1 year"],
] as const;

export function mount(root: HTMLElement, app: AppContext): () => void {
  let gone = false;
  const api = tokensApi(app.api);
  let opened: OpenedVault[] = [];
  root.classList.add("section");
  const error = el("p", { id: "tokens-error", className: "error", role: "alert" });
  const vault = el("select", { id: "token-vault", required: true });
  const name = el("input", {
    id: "token-name",
    maxLength: 100,
    required: true,
    autocomplete: "off",
  });
  const expires = el(
    "select",
    { id: "token-expires" },
    ...EXPIRY.map(([v, t]) => el("option", { value: v, selected: v === "30" }, t)),
  );
  const submit = el("button", { type: "submit", id: "token-create" }, "Make token");
  const made = el("div", { id: "token-made", className: "card", hidden: true });
  const form = el(
    "form",
    { id: "token-form", className: "card", "aria-labelledby": "token-form-heading" },
    el("h2", { id: "token-form-heading" }, "New token"),
    el("label", { htmlFor: "token-vault" }, "Shared vault"),
    vault,
    el("label", { htmlFor: "token-name" }, "Token name"),
    name,
    el("label", { htmlFor: "token-expires" }, "Expires after"),
    expires,
    el("div", { className: "row" }, submit),
  );
  const rows = el("tbody", { id: "token-rows" });
  const reads = el("tbody", { id: "token-reads" });
  const head = (...cols: string[]) =>
    el("thead", {}, el("tr", {}, ...cols.map((c) => el("th", { scope: "col" }, c))));
  root.replaceChildren(
    el("h1", {}, "Machine tokens"),
    el(
      "p",
      { className: "hint" },
      "A read-only token lets a CI job or an AI agent read one shared vault with the command line (VAULT_TOKEN), without your sign-in. Each read is listed below with the token's name and the reason it gave. Revoke a token you no longer use.",
    ),
    error,
    form,
    made,
    el("h2", {}, "Your tokens"),
    el(
      "table",
      { "aria-label": "Machine tokens" },
      head("Name", "Vault", "State", "Expires", "Last used", "Action"),
      rows,
    ),
    el("h2", {}, "Read log"),
    el("table", { "aria-label": "Read log" }, head("When", "Token", "Reason", "Entries"), reads),
  );

  const vaultName = (id: string) => opened.find((v) => v.vault.id === id)?.name ?? "Shared vault";

  function showToken(text: string, t: MachineToken) {
    const field = el("input", {
      id: "token-text",
      readOnly: true,
      value: text,
      "aria-label": "The new token",
    });
    const copy = el("button", { type: "button" }, "Copy token");
    copy.addEventListener("click", async () => {
      await navigator.clipboard.writeText(text);
      app.toast("Token copied");
    });
    made.replaceChildren(
      el("h2", {}, `Token “${t.name}” ready`),
      el(
        "p",
        { className: "hint" },
        "Copy it into the CI's or the agent's secrets now: it is shown only once, and stored nowhere.",
      ),
      field,
      el("div", { className: "row" }, copy),
    );
    made.hidden = false;
  }

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.textContent = "";
    const v = opened.find((o) => o.vault.id === vault.value);
    const label = name.value.trim();
    if (!v || !label) {
      error.textContent = v ? "Give the token a name." : "Choose a shared vault you can open.";
      return;
    }
    submit.disabled = true;
    try {
      const at = new Date(Date.now() + Number(expires.value) * 86_400_000);
      const { text, token } = await makeVaultToken(app.api, v, label, at);
      showToken(text, token);
      name.value = "";
      await render();
    } catch (err) {
      error.textContent = errorText(err);
    } finally {
      submit.disabled = false;
    }
  });

  function row(t: MachineToken): HTMLTableRowElement {
    const revoke = el("button", { type: "button", className: "danger" }, "Revoke");
    revoke.addEventListener("click", async () => {
      if (!confirm(`Revoke “${t.name}”? Its next read is refused.`)) return;
      error.textContent = "";
      try {
        await api.revoke(t.id);
        app.toast(`${t.name} revoked`);
      } catch (err) {
        error.textContent = errorText(err);
      }
      await render();
    });
    const state =
      t.state === "revoked" && t.revoked_reason
        ? `${STATE.revoked} (${WHY[t.revoked_reason] ?? t.revoked_reason})`
        : STATE[t.state];
    return el(
      "tr",
      { "data-token": t.id, "data-state": t.state },
      el("td", { className: "token-name" }, t.name),
      el("td", {}, vaultName(t.vault_id)),
      el("td", { className: "token-state" }, state),
      el("td", {}, formatTime(t.expires_at)),
      el("td", { className: "token-used" }, t.last_used_at ? formatTime(t.last_used_at) : "Never"),
      el("td", {}, t.state === "active" ? revoke : ""),
    );
  }

  const readRow = (r: TokenRead) =>
    el(
      "tr",
      { "data-read": r.id },
      el("td", {}, formatTime(r.created_at)),
      el("td", {}, r.token_name),
      el("td", { className: "read-reason" }, r.reason ?? "No reason given"),
      el("td", {}, String(r.entries)),
    );

  async function render() {
    try {
      const [tokens, log] = await Promise.all([api.list(), api.reads()]);
      if (gone) return;
      rows.replaceChildren(
        ...(tokens.length
          ? tokens.map(row)
          : [el("tr", {}, el("td", { colSpan: 6, className: "muted" }, "No tokens yet."))]),
      );
      reads.replaceChildren(
        ...(log.length
          ? log.map(readRow)
          : [el("tr", {}, el("td", { colSpan: 4, className: "muted" }, "No reads yet."))]),
      );
    } catch (err) {
      if (!gone) error.textContent = errorText(err);
    }
  }

  async function loadVaults() {
    try {
      const me = await vaultMe(app);
      opened = (await places(app, me)).flatMap((p) => (p.opened ? [p.opened] : []));
    } catch (err) {
      error.textContent = `Shared vaults cannot be opened here: ${errorText(err)}`;
    }
    if (gone) return;
    vault.replaceChildren(
      ...(opened.length
        ? opened.map((v) => el("option", { value: v.vault.id }, v.name))
        : [el("option", { value: "" }, "No shared vault you can open")]),
    );
    submit.disabled = opened.length === 0;
  }

  void loadVaults().then(render);
  return () => {
    gone = true;
  };
}
