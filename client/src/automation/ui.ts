/** Small view helpers shared by the automation sections (mailboxes, discovery, identities, shares). */
import { ApiError, OfflineError } from "../../../core/api";
import { el } from "../pages/common";

/** A section's frame: its h1 (focus target), an intro line, and the body parts. */
export function sectionFrame(
  root: HTMLElement,
  title: string,
  intro: string,
  ...parts: HTMLElement[]
) {
  root.append(
    el(
      "div",
      { className: "section" },
      el("h1", { textContent: title, tabIndex: -1 }),
      el("p", { className: "hint", textContent: intro }),
      ...parts,
    ),
  );
}

/** What went wrong, in words a person can act on, with the fields the server named. */
export function describeError(e: unknown, action: string): string {
  if (e instanceof OfflineError) return `${action} needs a connection; you are offline.`;
  if (e instanceof ApiError) {
    const detail = e.body.details?.map((d) => `${d.field}: ${d.message}`).join("; ");
    return `${action} failed: ${e.message}${detail ? ` (${detail})` : ""}`;
  }
  return `${action} failed: ${e instanceof Error ? e.message : String(e)}`;
}

export function button(
  label: string,
  onClick: () => void,
  opts: { aria?: string; secondary?: boolean } = {},
) {
  const b = el("button", {
    type: "button",
    textContent: label,
    className: opts.secondary === false ? "" : "secondary",
    onclick: onClick,
  });
  if (opts.aria) b.setAttribute("aria-label", opts.aria);
  return b;
}

/** Copies text, saying so; the clipboard may be refused (no permission, insecure origin). */
export async function copyText(text: string, what: string, toast: (m: string) => void) {
  try {
    await navigator.clipboard.writeText(text);
    toast(`${what} copied`);
  } catch {
    toast(`Cannot copy ${what.toLowerCase()} here: select it and copy by hand`);
  }
}

export function labelled(label: string, control: HTMLElement, hint?: string) {
  return el(
    "label",
    {},
    label,
    control,
    ...(hint ? [el("span", { className: "hint", textContent: ` ${hint}` })] : []),
  );
}
