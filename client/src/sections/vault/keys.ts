/**
 * The vault page's keyboard path from a search to an entry: `/` focuses the search (outside fields
 * and the entry dialog), ArrowDown moves into the list, Enter opens the first row. The copy
 * shortcuts live with the detail. The search's help and, on a phone, the filters are shown on
 * demand (the `?` button or key, the Filters button), so the list starts near the top of the screen.
 */
import type { EntryList } from "./list";

const editable = (t: EventTarget | null) =>
  t instanceof HTMLElement && !!t.closest("input, textarea, select, [contenteditable]");

/** `openFirst` opens the first row of the search's answer (once the page has one: see vault.ts). */
export function bindSearchKeys(
  search: HTMLInputElement,
  list: EntryList,
  openFirst: () => void,
  dialog: HTMLDialogElement,
): () => void {
  search.addEventListener("keydown", (ev) => {
    if (ev.key === "ArrowDown") {
      ev.preventDefault();
      list.focus();
    } else if (ev.key === "Enter") {
      ev.preventDefault();
      openFirst();
    }
  });
  return pageKey("/", dialog, () => {
    search.focus();
    search.select();
  });
}

/**
 * `key` pressed on the page itself (no modifier, outside fields and the entry dialog) runs `act`;
 * returns the unbinding.
 */
function pageKey(key: string, dialog: HTMLDialogElement, act: () => void): () => void {
  const onKey = (ev: KeyboardEvent) => {
    if (ev.key !== key || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (editable(ev.target) || dialog.open) return;
    ev.preventDefault();
    act();
  };
  document.addEventListener("keydown", onKey);
  return () => document.removeEventListener("keydown", onKey);
}

/** A button that shows and hides what it controls, saying which in `aria-expanded`; returns its toggle. */
function disclosure(button: HTMLElement, open: (shown: boolean) => void) {
  const set = (shown: boolean) => {
    button.setAttribute("aria-expanded", String(shown));
    open(shown);
  };
  button.addEventListener("click", () => set(button.getAttribute("aria-expanded") !== "true"));
  return () => set(button.getAttribute("aria-expanded") !== "true");
}

/**
 * The help's `?` button and key (outside fields and the entry dialog), and the Filters button: on
 * a phone the filters are folded under it (styles.css shows the button only there).
 */
export function bindDisclosures(
  $: (id: string) => HTMLElement,
  dialog: HTMLDialogElement,
): () => void {
  const help = $("search-help");
  const toggleHelp = disclosure($("keys-help-toggle"), (shown) => (help.hidden = !shown));
  const filters = $("vault-filters");
  disclosure($("filters-toggle"), (shown) => filters.classList.toggle("open", shown));
  return pageKey("?", dialog, toggleHelp);
}
