/**
 * On a phone a table is shown as a list of cards (styles.css), each cell headed by its column's
 * name. The names come from the table's own header cells: this observer copies them onto every
 * body cell as data-label, so no section has to repeat them. Cells spanning columns get none.
 */
function label(table: HTMLTableElement) {
  const heads = Array.from(table.tHead?.rows[0]?.cells ?? []).map(
    (th) => th.textContent?.trim() ?? "",
  );
  if (!heads.length) return;
  for (const body of Array.from(table.tBodies)) {
    for (const row of Array.from(body.rows)) {
      let col = 0;
      for (const cell of Array.from(row.cells)) {
        const name = cell.colSpan === 1 ? heads[col] : undefined;
        if (name && cell.dataset.label !== name) cell.dataset.label = name;
        col += cell.colSpan;
      }
    }
  }
}

export function labelTables(root: HTMLElement): () => void {
  let queued = false;
  const run = () => {
    queued = false;
    for (const table of Array.from(root.querySelectorAll("table"))) label(table);
  };
  const observer = new MutationObserver(() => {
    if (queued) return;
    queued = true;
    queueMicrotask(run);
  });
  observer.observe(root, { childList: true, subtree: true });
  return () => observer.disconnect();
}
