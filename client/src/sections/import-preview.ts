/**
 * The import's preview and summary: each item of the file says whether it will be kept as it is,
 * kept with changes (and which), or skipped (and why), before anything is sent; the summary after
 * the import says the same of what was sent.
 */
import { type ImportedCredential, kindSummary, type Skipped } from "../../../core/importers";
import type { StoredPasskey } from "../../../core/passkeys";
import { el, plural } from "../../../core/ui";
import type { VaultFileItem } from "../../../core/importers";

/**
 * A row of the preview: the credential, or why it cannot be imported; `passkeys` to seal with it
 * (CXF, Bitwarden); `own`, an entry of this vault's own file, sealed whole; `duplicate`, what of
 * this vault it repeats and what the import does about it.
 */
export type Row = {
  credential: ImportedCredential;
  problem: string | null;
  passkeys?: StoredPasskey[];
  own?: VaultFileItem;
  duplicate?: string;
};

const KIND_WORDS = {
  login: "login",
  note: "secure note",
  card: "card",
  identity: "identity",
  ssh_key: "SSH key",
} as const;

/** The item's kind, and what the source called it when that is another ("bank account, as a secure note"). */
function kindWord(c: ImportedCredential): string {
  const word = KIND_WORDS[c.kind];
  if (c.sourceKind) return `${c.sourceKind}, as ${c.kind === "identity" ? "an" : "a"} ${word}`;
  return c.kind === "login" ? "" : word;
}

/** What of an item is kept beyond name, username and password, in a few words. */
export function keptParts(c: ImportedCredential): string {
  const hidden = c.fields.filter((f) => f.type === "hidden").length;
  return [
    kindWord(c),
    c.urls.length ? `${plural(c.urls.length, "more address", "more addresses")}` : "",
    c.fields.length
      ? `${plural(c.fields.length, "field")}${hidden ? ` (${hidden} hidden)` : ""}`
      : "",
    c.totp ? "TOTP" : "",
    c.history.length ? plural(c.history.length, "earlier password") : "",
    c.passkeys?.length ? plural(c.passkeys.length, "passkey") : "",
    c.notes.trim() ? "notes" : "",
    c.folder ? `folder ${c.folder}` : "",
    c.tags.length ? `tags ${c.tags.join(", ")}` : "",
    c.favorite ? "favourite" : "",
  ]
    .filter(Boolean)
    .join("; ");
}

export function statusOf(r: Row): {
  status: "kept" | "changed" | "duplicate" | "skipped";
  text: string;
} {
  if (r.problem) return { status: "skipped", text: `Skipped: ${r.problem}` };
  if (r.duplicate) return { status: "duplicate", text: `Duplicate: ${r.duplicate}` };
  if (r.credential.changes.length)
    return { status: "changed", text: `Changed: ${r.credential.changes.join("; ")}` };
  return { status: "kept", text: "Kept as it is" };
}

export function counts(rows: Row[], skipped: Skipped[]) {
  const kept = rows.filter((r) => statusOf(r).status === "kept").length;
  const changed = rows.filter((r) => statusOf(r).status === "changed").length;
  const duplicates = rows.filter((r) => statusOf(r).status === "duplicate").length;
  return {
    kept,
    changed,
    duplicates,
    skipped: rows.length - kept - changed - duplicates + skipped.length,
    ready: kept + changed + duplicates,
  };
}

/** Duplicates are named only when there are some: most files have none. */
const copies = (n: number) =>
  n ? `, ${plural(n, "duplicate", "duplicates")} imported as ${n === 1 ? "a copy" : "copies"}` : "";

export function summaryText(label: string, rows: Row[], skipped: Skipped[]): string {
  const n = counts(rows, skipped);
  return `${label}: ${plural(n.ready, "entry", "entries")} ready (${n.kept} kept as they are, ${n.changed} changed${copies(n.duplicates)}), ${n.skipped} skipped.`;
}

/**
 * What the entries to import are, by kind, and which of the source's kinds arrive as the nearest
 * kind the vault has ("1 bank account (as a secure note)"); empty when nothing is to be imported.
 */
export function kindsText(rows: Row[]): string {
  const ready = rows.filter((r) => !r.problem).map((r) => r.credential);
  return ready.length ? `By kind: ${kindSummary(ready)}.` : "";
}

export function previewTable(table: HTMLTableElement, rows: Row[], skipped: Skipped[]) {
  const head = el(
    "tr",
    {},
    el("th", {}, "#"),
    el("th", {}, "Name"),
    el("th", {}, "Website"),
    el("th", {}, "Username"),
    el("th", {}, "Also kept"),
    el("th", {}, "Status"),
  );
  const body = rows.map((r, i) => {
    const s = statusOf(r);
    return el(
      "tr",
      { className: s.status === "skipped" ? "row-error" : "", "data-status": s.status },
      el("td", {}, String(i + 1)),
      el("td", {}, r.credential.name),
      el("td", {}, r.credential.website ?? ""),
      el("td", {}, r.credential.username),
      el("td", {}, keptParts(r.credential)),
      el("td", {}, s.text),
    );
  });
  const left = skipped.map((s) =>
    el(
      "tr",
      { className: "row-error", "data-status": "skipped" },
      el("td", {}, "—"),
      el("td", {}, s.name),
      el("td", { colSpan: 3 }, ""),
      el("td", {}, `Skipped: ${s.reason}`),
    ),
  );
  table.replaceChildren(el("thead", {}, head), el("tbody", {}, ...body, ...left));
  table.hidden = false;
}

/** After the import: what was stored, what was changed, and every item not imported with its reason. */
export function resultList(
  imported: number,
  sent: number,
  rows: Row[],
  skipped: Skipped[],
  errors: string[],
): HTMLElement[] {
  const n = counts(rows, skipped);
  const notImported = [
    ...rows.filter((r) => r.problem).map((r) => `${r.credential.name}: ${r.problem}`),
    ...skipped.map((s) => `${s.name}: ${s.reason}`),
  ];
  const changed = rows
    .filter((r) => !r.problem && r.credential.changes.length)
    .map((r) => `${r.credential.name}: ${r.credential.changes.join("; ")}`);
  return [
    el(
      "p",
      { id: "import-done", "data-imported": String(imported) },
      `Imported ${imported} of ${plural(sent, "entry", "entries")}. ${n.kept} kept as they were, ${n.changed} changed${copies(n.duplicates)}, ${n.skipped} not imported.`,
    ),
    ...(changed.length
      ? [
          el(
            "details",
            { id: "import-changed" },
            el("summary", {}, `Changed (${changed.length})`),
            el("ul", {}, ...changed.map((t) => el("li", {}, t))),
          ),
        ]
      : []),
    ...(notImported.length
      ? [
          el(
            "details",
            { id: "import-skipped" },
            el("summary", {}, `Not imported (${notImported.length})`),
            el("ul", {}, ...notImported.map((t) => el("li", {}, t))),
          ),
        ]
      : []),
    ...(errors.length
      ? [el("ul", { className: "error" }, ...errors.map((e) => el("li", {}, e)))]
      : []),
  ];
}
