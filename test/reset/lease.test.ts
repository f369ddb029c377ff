import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { dbFor } from "../../src/db/client";
import type { TaskStep } from "../../src/db/schema";
import { consumeResetBatch, type ResetMessage } from "../../src/domains/reset/consumer";
import { taskProgress } from "../../durable-objects/task-progress";
import { sealToClient } from "../../src/domains/reset/jwe";
import {
  claimForRun,
  leaseMs,
  MAX_RUNS,
  QUEUE_MAX_RETRIES,
  STOPPED_TYPING,
} from "../../src/domains/reset/lease";
import * as repo from "../../src/domains/reset/repo";
import { loadConfig } from "../../src/env";
import { TestUser } from "../support/auth";
import { clientKeys, connectMailbox, imap, site } from "./support";

const bindings = env as never;
const config = loadConfig(bindings);
const names = ["navigate", "enter_email", "wait_for_email", "follow_link", "set_password"];
const steps = (running?: string): TaskStep[] =>
  names.map((name) => ({ name, status: name === running ? "running" : "pending", duration: null }));
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

async function storedTask(
  userId: string,
  over: Partial<Parameters<typeof repo.insertTask>[1]> = {},
  keys?: Awaited<ReturnType<typeof clientKeys>>,
) {
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  await repo.insertTask(dbFor(bindings, userId), {
    id,
    userId,
    service: "localhost",
    serviceUrl: `${site}/forgot-captcha`,
    email: imap.user,
    clientPublicKey: (keys ?? (await clientKeys())).publicJwk as JsonWebKey,
    status: "pending",
    steps: steps(),
    createdAt: now,
    updatedAt: now,
    ...over,
  });
  return id;
}

function deliver(body: ResetMessage, attempts = 1) {
  const msg = {
    id: crypto.randomUUID(),
    timestamp: new Date(),
    body,
    attempts,
    ack: vi.fn(),
    retry: vi.fn(),
  };
  const queue = { send: vi.fn(async () => undefined) };
  const run = () =>
    consumeResetBatch(
      {
        queue: "credential-vault-reset",
        messages: [msg],
        ackAll() {},
        retryAll() {},
      } as unknown as MessageBatch<ResetMessage>,
      { ...(env as object), RESET_QUEUE: queue } as never,
    );
  return { msg, queue, run };
}

const row = (userId: string, id: string) =>
  repo.findTask(dbFor(bindings, userId), userId, id).then((r) => r!);

describe("reset job lease", () => {
  it("two deliveries racing for a pending job: exactly one claims it", async () => {
    const userId = crypto.randomUUID();
    const id = await storedTask(userId);
    const db = dbFor(bindings, userId);
    const outcomes = await Promise.all([
      claimForRun(bindings, config, db, userId, id),
      claimForRun(bindings, config, db, userId, id),
    ]);
    expect(outcomes.filter((o) => "task" in o)).toHaveLength(1);
    expect(outcomes.filter((o) => "retryAfterSeconds" in o)).toHaveLength(1);
    const stored = await row(userId, id);
    expect(stored).toMatchObject({ status: "running", runs: 1 });
    expect(Date.parse(stored.leaseExpiresAt!) - Date.now()).toBeGreaterThan(
      leaseMs(config) - 5_000,
    );
  });

  it("a redelivery while the lease is live comes back when it could expire and changes nothing", async () => {
    const userId = crypto.randomUUID();
    const id = await storedTask(userId, {
      status: "waiting_for_email",
      steps: steps("wait_for_email"),
      leaseId: "live-run",
      leaseExpiresAt: new Date(Date.now() + 90_000).toISOString(),
      runs: 1,
    });
    const { msg, run } = deliver({ taskId: id, userId }, 2);
    await run();
    expect(msg.ack).not.toHaveBeenCalled();
    expect(msg.retry).toHaveBeenCalledTimes(1);
    const delay = msg.retry.mock.calls[0][0].delaySeconds as number;
    expect(delay).toBeGreaterThanOrEqual(89);
    expect(delay).toBeLessThanOrEqual(92);
    expect(await row(userId, id)).toMatchObject({
      status: "waiting_for_email",
      leaseId: "live-run",
      runs: 1,
    });
  });

  it("a live lease outlasting the message's last retry is handed to a fresh message", async () => {
    const userId = crypto.randomUUID();
    const id = await storedTask(userId, {
      status: "running",
      steps: steps("navigate"),
      leaseId: "slow-run",
      leaseExpiresAt: new Date(Date.now() + 30_000).toISOString(),
      runs: 1,
    });
    const { msg, queue, run } = deliver({ taskId: id, userId }, QUEUE_MAX_RETRIES + 1);
    await run();
    expect(msg.retry).not.toHaveBeenCalled();
    expect(msg.ack).toHaveBeenCalledTimes(1);
    expect(queue.send).toHaveBeenCalledWith(
      { taskId: id, userId },
      { delaySeconds: expect.any(Number) },
    );
    expect(await row(userId, id)).toMatchObject({
      status: "running",
      leaseId: "slow-run",
      runs: 1,
    });
  });

  it("a dead worker's expired lease is taken over and run to its end; the dead run can no longer write", async () => {
    const user = await TestUser.create();
    await connectMailbox(user);
    const id = await storedTask(user.id, {
      status: "running",
      steps: steps("navigate"),
      startedAt: ago(200_000),
      leaseId: "dead-run",
      leaseExpiresAt: ago(1_000),
      runs: 1,
    });
    const { msg, run } = deliver({ taskId: id, userId: user.id }, 2);
    await run();
    expect(msg.ack).toHaveBeenCalledTimes(1);
    const stored = await row(user.id, id);
    expect(stored).toMatchObject({ status: "failed", error: "captcha", runs: 2 });
    expect(stored.leaseId).not.toBe("dead-run");
    expect(stored.steps.map((s) => s.status)).toEqual([
      "failed",
      "skipped",
      "skipped",
      "skipped",
      "skipped",
    ]);
    expect(Number.isInteger(stored.steps[0].launchMs)).toBe(true);
    expect(
      await repo.updateLeased(dbFor(bindings, user.id), user.id, id, "dead-run", {
        status: "completed",
      }),
    ).toBe(false);
    expect((await row(user.id, id)).status).toBe("failed");
    const task = (await (await user.call("GET", `/api/jobs/${id}`)).json()) as { status: string };
    expect(task.status).toBe("failed");
  }, 60_000);

  it("a lease that expired on the last allowed run ends the job as failed", async () => {
    const userId = crypto.randomUUID();
    const id = await storedTask(userId, {
      status: "waiting_for_email",
      steps: steps("wait_for_email"),
      leaseId: "last-run",
      leaseExpiresAt: ago(1_000),
      runs: MAX_RUNS,
    });
    const { msg, run } = deliver({ taskId: id, userId }, 3);
    await run();
    expect(msg.ack).toHaveBeenCalledTimes(1);
    const stored = await row(userId, id);
    expect(stored).toMatchObject({
      status: "failed",
      error: "the automation stopped unexpectedly",
      runs: MAX_RUNS,
    });
    expect(stored.steps.map((s) => s.status)).toEqual([
      "skipped",
      "skipped",
      "failed",
      "skipped",
      "skipped",
    ]);
  });

  it("an ended job or an unknown one is acknowledged untouched", async () => {
    const userId = crypto.randomUUID();
    const id = await storedTask(userId, {
      status: "completed",
      leaseId: "done-run",
      leaseExpiresAt: ago(60_000),
      runs: 1,
    });
    const ended = deliver({ taskId: id, userId }, 2);
    await ended.run();
    expect(ended.msg.ack).toHaveBeenCalledTimes(1);
    expect(await row(userId, id)).toMatchObject({
      status: "completed",
      leaseId: "done-run",
      runs: 1,
    });
    const unknown = deliver({ taskId: crypto.randomUUID(), userId });
    await unknown.run();
    expect(unknown.msg.ack).toHaveBeenCalledTimes(1);
  });

  /** A run that died with the new password typed into the site's form: sealed and held before. */
  async function diedWhileTyping(runs: number) {
    const userId = crypto.randomUUID();
    const keys = await clientKeys();
    const typedSteps = names.map((name) => ({
      name,
      status: name === "set_password" ? "running" : "completed",
      duration: name === "set_password" ? null : 10,
    }));
    const id = await storedTask(
      userId,
      {
        status: "running",
        steps: typedSteps,
        startedAt: ago(200_000),
        leaseId: "dead-run",
        leaseExpiresAt: ago(1_000),
        runs,
      },
      keys,
    );
    await taskProgress(env.TASK_PROGRESS, id).holdPassword(
      await sealToClient(keys.publicJwk as JsonWebKey, "Typed-Before-1t-Died!"),
    );
    return { userId, id, keys };
  }

  it.each([
    ["a takeover", 1],
    ["the last allowed run", MAX_RUNS],
  ])(
    "a worker dead with the password in the site's form: %s delivers the held password, never a second reset",
    async (_name, runs) => {
      const { userId, id, keys } = await diedWhileTyping(runs);
      const { msg, run } = deliver({ taskId: id, userId }, 2);
      await run();
      expect(msg.ack).toHaveBeenCalledTimes(1);
      const stored = await row(userId, id);
      expect(stored).toMatchObject({ status: "failed", error: STOPPED_TYPING });
      expect(stored.steps.map((s) => s.status)).toEqual([
        "completed",
        "completed",
        "completed",
        "completed",
        "failed",
      ]);
      const latest = (await env.TASK_PROGRESS.get(
        env.TASK_PROGRESS.idFromName(id),
      ).latest()) as unknown as { data: { status: string; error: string; newPassword: string } };
      expect(latest.data).toMatchObject({ status: "failed", error: STOPPED_TYPING });
      expect(await keys.open(latest.data.newPassword)).toBe("Typed-Before-1t-Died!");
      // Nothing ran again: no browser step was started, no other password was made.
      expect(stored.steps.every((s) => s.name === "set_password" || s.duration === 10)).toBe(true);
    },
  );

  it("a dead run that had not reached the password's step runs again from the start, its held password unused", async () => {
    const user = await TestUser.create();
    await connectMailbox(user);
    const id = await storedTask(user.id, {
      status: "running",
      steps: steps("follow_link"),
      startedAt: ago(200_000),
      leaseId: "dead-run",
      leaseExpiresAt: ago(1_000),
      runs: 1,
    });
    await taskProgress(env.TASK_PROGRESS, id).holdPassword("held-but-never-typed");
    const { run } = deliver({ taskId: id, userId: user.id }, 2);
    await run();
    const stored = await row(user.id, id);
    expect(stored).toMatchObject({ status: "failed", error: "captcha", runs: 2 });
    const latest = (await env.TASK_PROGRESS.get(
      env.TASK_PROGRESS.idFromName(id),
    ).latest()) as unknown as { data: Record<string, unknown> };
    expect(latest.data.newPassword).toBeUndefined();
  }, 60_000);

  it("a message queued before the rename (it named the task jobId) is still run", async () => {
    const userId = crypto.randomUUID();
    const id = await storedTask(userId, {
      status: "waiting_for_email",
      steps: steps("wait_for_email"),
      leaseId: "last-run",
      leaseExpiresAt: ago(1_000),
      runs: MAX_RUNS,
    });
    const { msg, run } = deliver({ jobId: id, userId } as unknown as ResetMessage, 3);
    await run();
    expect(msg.ack).toHaveBeenCalledTimes(1);
    expect(await row(userId, id)).toMatchObject({
      status: "failed",
      error: "the automation stopped unexpectedly",
    });
  });
});
