/**
 * This browser's Web Push subscription as the server knows it: the id the server gave it, kept
 * beside the browser's own subscription so that turning push off, and signing out, remove both.
 */
import type { ApiClient } from "../api";

export const PUSH_ID_KEY = "push-subscription-id";

/**
 * Ends this browser's subscription at the push service and deletes the server's record of it.
 * A signed-out browser must not keep receiving the account's notices (the next person at this
 * computer would see them). Either half may fail on its own (offline, already gone): the browser's
 * unsubscribe alone makes the endpoint dead, and the server prunes a dead endpoint on its next
 * push (410), so each is attempted whatever the other did.
 */
export async function removeThisBrowsersPush(api: ApiClient): Promise<void> {
  const id = localStorage.getItem(PUSH_ID_KEY);
  localStorage.removeItem(PUSH_ID_KEY);
  const server = id ? api.pushUnsubscribe(id).catch(() => undefined) : Promise.resolve();
  const browser = (async () => {
    const reg = await navigator.serviceWorker?.getRegistration();
    await (await reg?.pushManager?.getSubscription())?.unsubscribe();
  })().catch(() => undefined);
  await Promise.all([server, browser]);
}
