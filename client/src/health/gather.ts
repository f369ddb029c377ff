/**
 * What the health page checks: the person's own entries, opened on this device in slices (a large
 * vault is thousands of decryptions), and the range source that asks the worker for a prefix.
 */
import { ApiError, type ApiClient } from "../../../core/api";
import type { LocalEntry } from "../../../core/store";
import { serviceUrlOf } from "../entry-tools/reset";
import { normalizeHost } from "../../../src/kernel/hostname";
import type { Vault } from "../../../core/vault";
import { HEALTH_ENDPOINTS, type RangeSource } from "../../../core/health";
import type { HealthItem } from "./detectors";

export { HEALTH_ENDPOINTS };

/** How long to wait when the range budget (600 a minute) is spent before asking again. */
const BUDGET_WAIT_S = 10;

/**
 * The worker's relay of the Pwned Passwords range. A 429 (the route's own budget, met only by very
 * large vaults) waits and asks again, saying so through `onWait`.
 */
export function workerRange(api: ApiClient, onWait?: (seconds: number) => void): RangeSource {
  return async function range(prefix) {
    for (;;) {
      try {
        return await api.text(HEALTH_ENDPOINTS.breachRange, { params: { prefix } });
      } catch (e) {
        if (!(e instanceof ApiError && e.status === 429)) throw e;
        onWait?.(BUDGET_WAIT_S);
        await new Promise((r) => setTimeout(r, BUDGET_WAIT_S * 1000));
      }
    }
  };
}

export type Gathered = { items: HealthItem[]; unreadable: number };

/** Opens every entry of the person's own vault that holds a password (placeholders have none yet). */
export async function gatherItems(
  vault: Vault,
  entries: LocalEntry[],
  onProgress?: (done: number, total: number) => void,
): Promise<Gathered> {
  const items: HealthItem[] = [];
  let unreadable = 0;
  let last = Date.now();
  for (let n = 0; n < entries.length; n++) {
    const e = entries[n]!;
    if (e.encryption_version === 3 && e.encrypted_data) {
      try {
        const s = await vault.secrets(e);
        items.push({
          id: e.id,
          name: e.name,
          host: normalizeHost(e.website ?? e.url ?? ""),
          url: serviceUrlOf(e),
          username: s.username,
          password: s.password,
          totp: s.totp,
          changedAt: s.password_changed_at ?? null,
          createdAt: e.created_at,
        });
      } catch {
        unreadable++;
      }
    }
    if (Date.now() - last > 12) {
      onProgress?.(n + 1, entries.length);
      await new Promise((r) => setTimeout(r, 0));
      last = Date.now();
    }
  }
  return { items, unreadable };
}
