import { describe, expect, it } from "vitest";
import type { ApiClient, WireMutation } from "../../core/api";
import type { LocalDb, PendingMutation } from "../../core/store";
import { MAX_BATCH, pushPending } from "../../core/sync/sync-engine";

describe("pushing the queue", () => {
  it("sends at most 40 mutations a request, so a push stays under the free plan's 50 D1 queries", async () => {
    const queue: PendingMutation[] = Array.from({ length: 95 }, (_, n) => ({
      seq: n + 1,
      userId: "u1",
      action: "delete",
      entryId: `e${n}`,
      clientUpdatedAt: new Date(0).toISOString(),
    })) as PendingMutation[];
    const settled: string[] = [];
    const db = {
      pending: async () => queue,
      entry: async () => undefined,
      settle: async (m: PendingMutation) => void settled.push(m.entryId),
      markFailed: async () => undefined,
    } as unknown as LocalDb;
    const sizes: number[] = [];
    const api = {
      syncPush: async (batch: WireMutation[]) => {
        sizes.push(batch.length);
        return { results: batch.map((m) => ({ id: m.id, status: "applied" })) };
      },
    } as unknown as ApiClient;
    const report = await pushPending(db, api, "u1");
    expect(MAX_BATCH).toBe(40);
    expect(sizes).toEqual([40, 40, 15]);
    expect(report).toEqual({ sent: 95, applied: 95, conflicts: 0, failed: 0 });
    expect(settled).toHaveLength(95);
  });
});
