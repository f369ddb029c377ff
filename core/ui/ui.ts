/** Small DOM helpers for the sections and entry tools: text only through textContent, never HTML. */
import { ApiError, BUSY_SENTENCE, OfflineError } from "../api";

type Props = Record<string, string | number | boolean | undefined>;

/** An element with properties (or attributes, for names with a dash) and children (nodes or text). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (v === undefined) continue;
    if (k.includes("-") || !(k in node)) node.setAttribute(k, String(v));
    else (node as unknown as Record<string, unknown>)[k] = v;
  }
  node.append(...children);
  return node;
}

/** What to tell the person about a failed call: the server's message, or that the network is gone. */
/**
 * A one-shot note that the person has just unlocked the vault or signed in. The vault page's search
 * takes the focus then (type, Enter, c), while a plain load or reload leaves Tab's first stop to the
 * skip link, as on every other page. In session storage, so it crosses the sign-in page's
 * navigation; it holds nothing secret.
 */
const UNLOCKED_NOW = "vault:unlocked-now";
export const noteUnlocked = () => sessionStorage.setItem(UNLOCKED_NOW, "1");
export function takeUnlocked(): boolean {
  const now = sessionStorage.getItem(UNLOCKED_NOW) === "1";
  sessionStorage.removeItem(UNLOCKED_NOW);
  return now;
}

/** A right 2FA code whose 30-second step was taken already (the server's details say "already_used"). */
export const CODE_USED_SENTENCE = "This code was just used. Wait for the next code";

export function errorText(err: unknown): string {
  if (err instanceof OfflineError) return "You are offline";
  if (err instanceof ApiError) {
    if (err.status === 429) return BUSY_SENTENCE;
    const field = err.body.details?.[0];
    if (field?.field === "code" && field.message === "already_used") return CODE_USED_SENTENCE;
    return field ? `${err.body.error}: ${field.field} ${field.message}` : err.body.error;
  }
  return err instanceof Error ? err.message : String(err);
}

/** "1 entry", "3 entries": a count with its noun. */
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function formatTime(iso: string | null): string {
  return iso ? new Date(iso).toLocaleString() : "—";
}

/** Offers `text` as a file download named `filename`. */
export function download(filename: string, text: string, type = "text/plain"): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = el("a", { href: url, download: filename });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
