/**
 * The vault page's keyboard path from a search to an entry: `/` focuses the search (outside fields
 * and the entry dialog), ArrowDown moves into the list, Enter opens the first row. The copy
 * shortcuts live with the detail.
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
  const onKey = (ev: KeyboardEvent) => {
    if (
      ev.key !== "/" ||
      ev.ctrlKey ||
      ev.metaKey ||
      ev.altKey ||
      editable(ev.target) ||
      dialog.open
    )
      return;
    ev.preventDefault();
    search.focus();
    search.select();
  };
  document.addEventListener("keydown", onKey);
  return () => document.removeEventListener("keydown", onKey);
}
