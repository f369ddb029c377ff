/**
 * Work on thousands of entries done in slices, the main thread free between them: a slice well
 * under the 50 ms that makes a long task, then the next one in a task of its own.
 */

/**
 * Resolves in a new task. A message port rather than a timer: nested timers are clamped to 4 ms,
 * and to a second or more in a background tab, where a vault still opens.
 */
export function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();
      resolve();
    };
    port2.postMessage(null);
  });
}

/** A slice's share of the main thread before it yields: well under a long task, even on a slow device. */
const SLICE_MS = 8;

/**
 * A clock for a loop over thousands of items: `due()` is true once the slice has run its share,
 * and `yield()` then lets the page's other tasks (input, paints) run before the next slice.
 */
export function slicer(ms = SLICE_MS) {
  let start = performance.now();
  return {
    due: () => performance.now() - start >= ms,
    async yield() {
      await nextTask();
      start = performance.now();
    },
  };
}

/** Items compared per task while sorting: a few milliseconds of collation. */
const SORT_SLICE = 1000;

/** A stable sort of `items` (a new array), run as a merge sort of slices, each in its own task. */
export async function sortInSlices<T>(
  items: readonly T[],
  compare: (a: T, b: T) => number,
): Promise<T[]> {
  let runs: T[][] = [];
  for (let i = 0; i < items.length; i += SORT_SLICE) {
    runs.push(items.slice(i, i + SORT_SLICE).sort(compare));
    if (items.length > SORT_SLICE) await nextTask();
  }
  while (runs.length > 1) {
    const merged: T[][] = [];
    for (let i = 0; i < runs.length; i += 2)
      merged.push(i + 1 < runs.length ? await merge(runs[i]!, runs[i + 1]!, compare) : runs[i]!);
    runs = merged;
  }
  return runs[0] ?? [];
}

async function merge<T>(a: T[], b: T[], compare: (a: T, b: T) => number): Promise<T[]> {
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    // Ties from the left run first: the sort stays stable.
    out.push(compare(a[i]!, b[j]!) <= 0 ? a[i++]! : b[j++]!);
    if (out.length % SORT_SLICE === 0) await nextTask();
  }
  return out.concat(a.slice(i), b.slice(j));
}
