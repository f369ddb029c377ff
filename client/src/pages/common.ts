/** Registers the service worker (scope /) from any page; pages work without it, just not offline. */
export async function registerServiceWorker(): Promise<ServiceWorkerRegistration | null> {
  if (!("serviceWorker" in navigator)) return null;
  let reg: ServiceWorkerRegistration;
  try {
    reg = await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  } catch {
    return null;
  }
  // A page whose navigation left before the worker activated, and that came after its
  // clients.claim(), stays uncontrolled (no offline) until the next load: ask for a claim of it.
  void navigator.serviceWorker.ready.then((ready) => {
    if (!navigator.serviceWorker.controller) ready.active?.postMessage({ type: "CLAIM" });
  });
  return reg;
}

/**
 * Asks the service worker to cache the large bundles its install left out (sw.ts): sent once the
 * vault has opened, so on a new browser they never compete with the sign-in and the first rows.
 */
export function precacheDeferred(): void {
  void navigator.serviceWorker?.ready
    .then((reg) => reg.active?.postMessage({ type: "PRECACHE_DEFERRED" }))
    .catch(() => undefined);
}

export function $(id: string): HTMLElement {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing from the page`);
  return el;
}

export function input(id: string): HTMLInputElement {
  return $(id) as HTMLInputElement;
}

/**
 * Lookups inside one section's root. A section's late answers (a key set up, a list loaded) may
 * arrive after the person went to another section: they then land in the old, detached root and
 * change nothing on screen, where a document-wide lookup would find nothing and throw.
 */
export function scope(root: HTMLElement): {
  $: (id: string) => HTMLElement;
  input: (id: string) => HTMLInputElement;
} {
  const find = (id: string) => {
    const found = root.querySelector<HTMLElement>(`#${CSS.escape(id)}`);
    if (!found) throw new Error(`#${id} is missing from the section`);
    return found;
  };
  return { $: find, input: (id) => find(id) as HTMLInputElement };
}

/** Leaves a push of the queue to the service worker (rule 6), for when this page is gone. */
export async function requestBackgroundSync() {
  try {
    const reg = (await navigator.serviceWorker?.getRegistration()) as
      | (ServiceWorkerRegistration & { sync?: { register(tag: string): Promise<void> } })
      | undefined;
    await reg?.sync?.register("vault-sync");
  } catch {
    // Background Sync is optional; the timer and the online event still push the queue.
  }
}

/** An element with text, for building views without innerHTML. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<HTMLElementTagNameMap[K]> & { dataset?: Record<string, string> } = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  const { dataset, ...rest } = props;
  Object.assign(node, rest);
  if (dataset) Object.assign(node.dataset, dataset);
  node.append(...children);
  return node;
}

/**
 * A section reached for one row (a notification's action names it in the query, `?<param>=<id>`):
 * the row stands out and its first button (Accept while pending) takes the focus, here and after
 * the shell's own focus on arrival, so the person answers it at once. False when no row matches.
 */
export function arriveAtRow(root: HTMLElement, param: string, rows: string, attr: string): boolean {
  const id = new URLSearchParams(location.search).get(param);
  const row = id
    ? root.querySelector<HTMLElement>(`${rows} tr[${attr}="${CSS.escape(id)}"]`)
    : null;
  if (!row) return false;
  row.dataset.named = "true";
  const action = row.querySelector("button");
  action?.setAttribute("data-focus-on-arrival", "");
  action?.focus();
  row.scrollIntoView({ block: "center" });
  return true;
}
