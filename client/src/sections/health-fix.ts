/**
 * The "Fix" of a health finding. An entry whose account address is one of the connected mailboxes
 * is reset by the automation (the reset tool's rules: a step-up, that mailbox, the new password
 * saved into the entry); any other opens the site's change-password page (the well-known address
 * sites publish for password managers) with a generated password ready to copy.
 */
import { describeStartError } from "../entry-tools/reset";
import type { Finding, EntryHealth, HealthItem } from "../health/detectors";
import { el } from "../pages/common";
import {
  DEFAULT_LENGTH,
  generatePassword,
  rulesFor,
  withinRules,
  type RulesTable,
} from "../../../src/kernel/password-generator";
import type { ResetManager } from "../reset/manager";
import { mountResetView } from "../reset/view";
import type { AppContext } from "../shell/context";

export type FixTools = {
  app: AppContext;
  manager: ResetManager;
  /** Connected, active mailboxes (lower case): a reset reads its mail from one of them. */
  mailboxes: string[];
  rules: RulesTable;
  items: Map<string, HealthItem>;
};

/** The W3C "well-known URL for changing passwords": sites that have one redirect it to their own page. */
export function changePasswordUrl(host: string): string {
  return `https://${host}/.well-known/change-password`;
}

/** Whether the automation can reset this entry: it has an address, and its username is a connected mailbox. */
export function canReset(item: HealthItem | undefined, mailboxes: string[]): boolean {
  return !!item?.url && mailboxes.includes(item.username.trim().toLowerCase());
}

/** A link that opens the entry in the vault (`/vault?open=<id>`). */
export function entryLink(app: AppContext, id: string, text: string): HTMLAnchorElement {
  const a = el("a", { href: `/vault?open=${encodeURIComponent(id)}`, textContent: text });
  a.addEventListener("click", (ev) => {
    ev.preventDefault();
    app.navigate(`/vault?open=${encodeURIComponent(id)}`);
  });
  return a;
}

export function fixPanel(f: Finding, e: EntryHealth, tools: FixTools): HTMLElement {
  const { app, manager } = tools;
  const item = tools.items.get(e.id);
  const box = el("div", { className: "health-fix" });
  if (f === "no2fa") {
    box.append(
      el(
        "p",
        {},
        "Turn on two-factor sign-in in the site's security settings, then ",
        entryLink(app, e.id, `add the TOTP secret to ${e.name}`),
        ".",
      ),
    );
    return box;
  }
  const message = el("p", { className: "error", role: "alert" });
  const live = el("div");
  if (canReset(item, tools.mailboxes)) {
    const start = el("button", { type: "button", textContent: "Fix: reset password" });
    start.setAttribute("aria-label", `Fix ${e.name}: reset its password`);
    let unmount: (() => void) | null = null;
    const show = (r: ReturnType<ResetManager["forEntry"]>) => {
      unmount?.();
      unmount = r ? mountResetView(live, manager, r) : null;
    };
    show(manager.forEntry(e.id));
    start.addEventListener("click", () => {
      start.disabled = true;
      message.textContent = "";
      void manager
        .start({ entryId: e.id, serviceUrl: item!.url!, email: item!.username.trim() })
        .then(
          (r) => show(r),
          (err) => {
            start.disabled = false;
            message.textContent = describeStartError(err);
          },
        );
    });
    box.append(
      el("p", {
        className: "hint",
        textContent: `Resets the password at ${e.host ?? "the site"} with the reset email sent to ${item!.username.trim()}, and saves the new one here.`,
      }),
      el("div", { className: "row" }, start),
      message,
      live,
    );
    return box;
  }
  const fix = el("button", { type: "button", className: "secondary", textContent: "Fix" });
  fix.setAttribute("aria-label", `Fix ${e.name}`);
  fix.setAttribute("aria-expanded", "false");
  const panel = el("div", { className: "health-manual", hidden: true });
  fix.addEventListener("click", () => {
    const open = panel.hidden;
    panel.hidden = !open;
    fix.setAttribute("aria-expanded", String(open));
    if (open && !panel.childElementCount) fillManual(panel, e, tools);
  });
  box.append(el("div", { className: "row" }, fix), panel);
  return box;
}

function fillManual(panel: HTMLElement, e: EntryHealth, tools: FixTools) {
  const { rules } = rulesFor(tools.rules, e.host ?? "");
  const { options } = withinRules(
    { length: DEFAULT_LENGTH, lower: true, upper: true, digits: true, symbols: true },
    rules,
  );
  const value = el("input", {
    readOnly: true,
    value: generatePassword(options, rules),
    className: "mono",
    spellcheck: false,
    autocomplete: "off",
  });
  value.setAttribute("aria-label", `New password for ${e.name}`);
  const copy = el("button", { type: "button", className: "secondary", textContent: "Copy" });
  copy.setAttribute("aria-label", `Copy the new password for ${e.name}`);
  copy.addEventListener("click", () => {
    navigator.clipboard.writeText(value.value).then(
      () => tools.app.toast("New password copied"),
      () => tools.app.toast("Cannot copy: select the password and copy it"),
    );
  });
  const steps = el("ol", { className: "health-steps" });
  if (e.host) {
    steps.append(
      el(
        "li",
        {},
        el("a", {
          href: changePasswordUrl(e.host),
          target: "_blank",
          rel: "noopener noreferrer",
          textContent: `Open ${e.host}'s change-password page`,
        }),
        " (sign in there if it asks).",
      ),
    );
  } else {
    steps.append(
      el("li", { textContent: "Sign in to the service and open its change-password page." }),
    );
  }
  steps.append(
    el("li", {}, "Paste this new password there: ", el("span", { className: "row" }, value, copy)),
    el(
      "li",
      {},
      "Then ",
      entryLink(tools.app, e.id, `save it in ${e.name}`),
      ", so the vault keeps the old one in its history.",
    ),
  );
  panel.append(steps);
}
