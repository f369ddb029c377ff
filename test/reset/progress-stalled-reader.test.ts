import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { taskProgress } from "../../durable-objects/task-progress";

/** Resolves with "stalled" when `p` has not settled within `ms`. */
const within = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<"stalled">((r) => setTimeout(() => r("stalled"), ms))]);

describe("task progress with a reader that stopped reading", () => {
  it("the run's progress and the owner's cancel go on; a new stream replays the latest status", async () => {
    const id = crypto.randomUUID();
    const progress = taskProgress(env.TASK_PROGRESS, id);
    await progress.publish({ event: "status", data: { status: "running", step: "navigate" } });
    // Opened and never read: before, the first frame written to it held every later publish.
    const stalled = await env.TASK_PROGRESS.get(env.TASK_PROGRESS.idFromName(id)).fetch(
      "https://progress/",
    );
    expect(stalled.status).toBe(200);
    for (const step of ["enter_email", "wait_for_email"])
      expect(
        await within(
          progress.publish({ event: "status", data: { status: "running", step } }),
          5000,
        ),
      ).toBeUndefined();
    expect(await within(progress.cancel(), 5000)).toBeUndefined();
    expect(await progress.isCancelled()).toBe(true);
    const again = await env.TASK_PROGRESS.get(env.TASK_PROGRESS.idFromName(id)).fetch(
      "https://progress/",
    );
    expect(await again.text()).toContain('"status":"cancelled"');
    await stalled.body?.cancel();
  });
});
