/**
 * The vault list's headings and messages around the rows: the count and what the view is, the
 * empty vault's invitation, why nothing matches, and the tag filter's choices.
 */
import type { LocalEntry, PulledChange } from "../../../../core/store";
import { el } from "../../pages/common";

/** The section's own lookup (its root, never the document): a late paint after the person left lands in the detached root. */
type Lookup = (id: string) => HTMLElement;

export interface ListStatus {
  query: string;
  tag: string;
  /** The organiser's view ("in favourites", "in folder Work") as a phrase, "" when none. */
  scope: string;
  /** The folder shown, when one is. */
  folder: string | null;
  /** Whether a favourite, folder or kind filter is on. */
  organised: boolean;
  shown: number;
  /** Entries in the vault, own and shared with the person. */
  total: number;
}

export function drawStatus($: Lookup, s: ListStatus) {
  $("empty").hidden = s.total > 0;
  const noMatch = $("no-match");
  noMatch.hidden = !(
    (s.query || s.tag || s.organised) &&
    s.shown === 0 &&
    (s.total > 0 || s.folder)
  );
  noMatch.textContent = s.query
    ? `No entry matches “${s.query}”. Search looks at whole words and word beginnings of the name, website and username.`
    : s.folder
      ? `The folder ${s.folder} is empty. To move an entry into it, open the entry and choose ${s.folder} under “In folder”.`
      : "No entry in this view yet.";
  const tagged = (s.tag ? ` tagged “${s.tag}”` : "") + s.scope;
  $("entries-heading").textContent = s.query
    ? `Entries${tagged} matching “${s.query}” (${s.shown})`
    : `Entries${tagged} (${s.shown})`;
}

/** The tag filter's options: every tag in the vault, the current choice kept. */
export function drawTags($: Lookup, entries: LocalEntry[], added?: readonly PulledChange[]) {
  const select = $("tag-filter") as HTMLSelectElement;
  // A pull's arrival only adds entries: the choices are made again only when it brings a tag not
  // offered yet (gathering the tags of all 10,000 entries at every arrival was a pass over all).
  // A tag whose last entry a page removed stays offered until the paint after the pull.
  if (added && select.dataset.sig !== undefined) {
    const offered = new Set(select.dataset.sig.split("\u0001"));
    if (added.every((c) => "tombstone" in c || c.tags.every((t) => offered.has(t)))) return;
  }
  const tags = [...new Set(entries.flatMap((e) => e.tags))].sort((a, b) => a.localeCompare(b));
  const sig = tags.join("\u0001");
  if (select.dataset.sig === sig) return;
  select.dataset.sig = sig;
  const current = select.value;
  select.replaceChildren(
    el("option", { value: "", textContent: "All tags" }),
    ...tags.map((t) => el("option", { value: t, textContent: t })),
  );
  select.value = tags.includes(current) ? current : "";
}

/** The notice of entries that did not open: how many, and why when the client refused them. */
export function drawUnreadable($: Lookup, unreadable: number, reasons: string[]) {
  const count = `${unreadable} ${unreadable === 1 ? "entry" : "entries"}`;
  $("foreign-key").hidden = unreadable === 0;
  // Refused envelopes say why; the rest are under another vault key, most likely after a
  // passphrase change on another device.
  $("foreign-key").textContent = reasons.length
    ? `${count} not shown. ${reasons.join(" ")}`
    : `${count} cannot be opened with this device's key. If the master passphrase was changed on another device, sign out and sign in with the new one.`;
}
