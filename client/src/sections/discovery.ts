/**
 * Account discovery (/discovery): scan the connected mailboxes for services the person has
 * accounts with, grouped by category with in-vault markers; dismiss and restore; add selected ones
 * to the vault. The placeholders the server creates are encrypted here at once (Vault.sealPlaceholders).
 */
import { AUTOMATION_ENDPOINTS as EP } from "../automation/endpoints";
import { button, describeError, sectionFrame } from "../automation/ui";
import { el } from "../pages/common";
import { activeMailboxes } from "../reset/mailboxes";
import type { AppContext } from "../shell/context";
import type { WireResponse } from "../../../core/api";

/** What the page shows: the last list or scan, every page of it joined. */
type Listing = Omit<WireResponse<"/api/accounts", "get">, "next_cursor">;
type Account = Listing["accounts"][number];

const SKIP_REASONS = {
  in_vault: "already in the vault",
  not_discovered: "not found by a scan",
} as const;

export function mount(root: HTMLElement, app: AppContext): () => void {
  const { api } = app;
  const source = el(
    "select",
    { name: "source" },
    el("option", { value: "", textContent: "All connected mailboxes" }),
  );
  const scan = el("button", { type: "button", textContent: "Scan mailboxes" });
  const progress = el(
    "div",
    { className: "scan-progress", hidden: true },
    el("progress", {}),
    el("span", { role: "status" }),
  );
  const status = el("p", { role: "status", className: "notice" });
  const error = el("p", { className: "error", role: "alert" });
  const stats = el("p", { className: "muted discovery-stats" });
  const showDismissed = el("input", { type: "checkbox", name: "show-dismissed" });
  const add = el("button", {
    type: "button",
    textContent: "Add selected to vault",
    disabled: true,
  });
  const groups = el("div", { className: "discovery-groups" });
  sectionFrame(
    root,
    "Account discovery",
    "Finds services you have accounts with from the senders of sign-up and security mail (headers only), and shows which are not in your vault yet.",
    el(
      "div",
      { className: "card" },
      el("label", {}, "Mailbox to scan", source),
      el("div", { className: "row" }, scan),
      progress,
    ),
    status,
    error,
    stats,
    el("label", { className: "inline" }, showDismissed, " Show dismissed"),
    el("div", { className: "row" }, add),
    groups,
  );
  let timer: ReturnType<typeof setInterval> | undefined;
  const selected = new Set<string>();

  function render(list: Listing) {
    const s = list.stats;
    stats.textContent = `${s.total} found · ${s.inVault} in the vault · ${s.notInVault} not in the vault · ${s.dismissed} dismissed`;
    const byCategory = new Map<string, Account[]>();
    for (const a of [...list.accounts].sort((x, y) => x.serviceName.localeCompare(y.serviceName))) {
      const c = a.category ?? "other";
      byCategory.set(c, [...(byCategory.get(c) ?? []), a]);
    }
    for (const id of [...selected])
      if (!list.accounts.some((a) => a.id === id && !a.inVault && !a.dismissed))
        selected.delete(id);
    groups.replaceChildren(
      ...[...byCategory.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([category, accounts]) =>
          el(
            "section",
            { className: "card", dataset: { category } },
            el("h3", {
              textContent: `${category[0]!.toUpperCase()}${category.slice(1)} (${accounts.length})`,
            }),
            el("ul", { className: "discovered" }, ...accounts.map(row)),
          ),
        ),
    );
    if (list.accounts.length === 0)
      groups.append(
        el("p", { className: "muted", textContent: "Nothing found yet. Scan your mailboxes." }),
      );
    add.disabled = selected.size === 0;
  }

  function row(a: Account) {
    const li = el("li", {
      dataset: { domain: a.domain, inVault: String(a.inVault), dismissed: String(a.dismissed) },
    });
    const pick = el("input", {
      type: "checkbox",
      checked: selected.has(a.id),
      disabled: a.inVault || a.dismissed,
    });
    pick.setAttribute("aria-label", `Select ${a.serviceName}`);
    pick.addEventListener("change", () => {
      if (pick.checked) selected.add(a.id);
      else selected.delete(a.id);
      add.disabled = selected.size === 0;
    });
    const marker = a.inVault
      ? "In vault"
      : a.oauthLikely
        ? "Not in vault · likely signs in with another account"
        : "Not in vault";
    const seen = a.lastSeen ? `last mail ${new Date(a.lastSeen).toLocaleDateString()}` : "";
    li.append(
      pick,
      el("span", { className: "name", textContent: a.serviceName }),
      el("span", {
        className: "muted",
        textContent: ` ${a.domain} · ${a.emailCount} ${a.emailCount === 1 ? "mail" : "mails"}${seen ? ` · ${seen}` : ""}${a.sourceEmail ? ` · ${a.sourceEmail}` : ""} `,
      }),
      el("span", {
        className: `badge ${a.inVault ? "ok" : ""}`,
        textContent: a.dismissed ? "Dismissed" : marker,
      }),
      a.dismissed
        ? button("Restore", () => void patch(a, false), { aria: `Restore ${a.serviceName}` })
        : button("Dismiss", () => void patch(a, true), { aria: `Dismiss ${a.serviceName}` }),
    );
    return li;
  }

  let current: Listing = {
    accounts: [],
    stats: { total: 0, inVault: 0, notInVault: 0, oauthLikely: 0, dismissed: 0 },
  };
  async function load() {
    try {
      current = await api.requestAll(EP.accounts, {
        query: { include_dismissed: showDismissed.checked ? "true" : undefined },
      });
      render(current);
    } catch (e) {
      error.textContent = describeError(e, "Loading discovered accounts");
    }
  }

  async function patch(a: Account, dismissed: boolean) {
    error.textContent = "";
    try {
      await api.request(EP.patchAccount, { body: { id: a.id, dismissed } });
      status.textContent = `${a.serviceName} ${dismissed ? "dismissed" : "restored"}.`;
      await load();
    } catch (e) {
      error.textContent = describeError(e, dismissed ? "Dismissing" : "Restoring");
    }
  }

  scan.addEventListener("click", () => {
    error.textContent = "";
    status.textContent = "";
    scan.disabled = true;
    progress.hidden = false;
    const t0 = Date.now();
    const say = progress.querySelector("span")!;
    const tick = () =>
      (say.textContent = ` Scanning ${source.value || "all connected mailboxes"}… ${Math.round((Date.now() - t0) / 1000)} s`);
    tick();
    timer = setInterval(tick, 1000);
    void api
      .request(EP.scanAccounts, { body: source.value ? { email: source.value } : {} })
      .then(
        async (list) => {
          status.textContent = `Scan finished: ${list.stats.total} services found, ${list.stats.notInVault} not in your vault.`;
          if (showDismissed.checked) await load();
          else render((current = list));
        },
        (e) => (error.textContent = describeError(e, "Scanning")),
      )
      .finally(() => {
        clearInterval(timer);
        progress.hidden = true;
        scan.disabled = false;
      });
  });

  showDismissed.addEventListener("change", () => void load());

  add.addEventListener("click", () => {
    const domains = current.accounts.filter((a) => selected.has(a.id)).map((a) => a.domain);
    if (domains.length === 0) return;
    add.disabled = true;
    error.textContent = "";
    void (async () => {
      try {
        const res = await api.request(EP.addToVault, { body: { domains } });
        selected.clear();
        // The new placeholders come down with the next pull; encrypt them here at once.
        await app.sync.syncNow();
        const sealed = await app.vault.sealPlaceholders();
        if (sealed) await app.changed();
        const skipped = res.skipped
          .map((s) => `${s.domain} (${SKIP_REASONS[s.reason] ?? s.reason})`)
          .join(", ");
        status.textContent = `Added ${res.created.length} ${res.created.length === 1 ? "entry" : "entries"} to the vault${res.created.length ? `: ${res.created.map((c) => c.name).join(", ")}` : ""}.${skipped ? ` Skipped ${skipped}.` : ""}`;
        await load();
      } catch (e) {
        error.textContent = describeError(e, "Adding to the vault");
        add.disabled = selected.size === 0;
      }
    })();
  });

  void activeMailboxes(api).then(
    (boxes) =>
      source.append(...boxes.map((b) => el("option", { value: b.email, textContent: b.email }))),
    () => undefined,
  );
  void load();
  return () => clearInterval(timer);
}
