import { describe, expect, it } from "vitest";
import { TestUser } from "../support/auth";
import {
  clientKeys,
  connectMailbox,
  imap,
  readStream,
  resetUser,
  site,
  type SseEvent,
} from "./support";

/**
 * This file's own Dovecot mailbox: the site has no account for it, so no reset mail ever comes.
 * Resets are started by users who may (D17: a recent sign-in from a registered device).
 */
const mailbox = imap.mailboxes.cancel;

type Task = {
  status: string;
  error?: string;
  completedAt: string | null;
  steps: { name: string; status: string }[];
};
const task = async (user: TestUser, id: string) =>
  (await (await user.call("GET", `/api/jobs/${id}`)).json()) as Task;

async function startWaitingTask(user: TestUser) {
  const keys = await clientKeys();
  const res = await user.call("POST", "/api/tasks/reset", {
    body: {
      serviceUrl: `${site}/forgot-password`,
      email: mailbox,
      clientPublicKey: keys.publicJwk,
    },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { taskId: string }).taskId;
}

describe("POST /api/tasks/<id>/cancel (DECISIONS D17)", () => {
  it("a task waiting for its reset mail stops: 200 cancelled, the stream ends with cancelled, nothing is written after", async () => {
    const user = await resetUser();
    await connectMailbox(user, mailbox);
    const taskId = await startWaitingTask(user);
    let cancel: Response | undefined;
    const events = await readStream(
      await user.call("GET", `/api/tasks/${taskId}/stream`),
      60_000,
      async (e: SseEvent) => {
        if (e.event === "status" && e.data.status === "waiting_for_email" && !cancel)
          cancel = await user.call("POST", `/api/tasks/${taskId}/cancel`);
      },
    );
    expect(cancel?.status).toBe(200);
    expect(await cancel?.json()).toEqual({ taskId, status: "cancelled" });
    expect(events.at(-1)?.data).toEqual({ status: "cancelled" });

    // Past the mail wait (6 s in this suite): the run neither failed the task nor moved it on.
    await new Promise((r) => setTimeout(r, 8_000));
    const after = await task(user, taskId);
    expect(after.status).toBe("cancelled");
    expect(after.error).toBeUndefined();
    expect(after.completedAt).not.toBeNull();
    expect(after.steps.map((s) => [s.name, s.status])).toEqual([
      ["navigate", "completed"],
      ["enter_email", "completed"],
      ["wait_for_email", "skipped"],
      ["follow_link", "skipped"],
      ["set_password", "skipped"],
    ]);
    const replay = await readStream(await user.call("GET", `/api/tasks/${taskId}/stream`), 5_000);
    expect(replay.map((e) => e.data.status)).toEqual(["cancelled"]);
    expect(
      await (
        await user.call("POST", `/api/tasks/${taskId}/otp`, { body: { code: "123456" } })
      ).json(),
    ).toEqual({ accepted: false });
  }, 90_000);

  it("an ended task answers 409 CONFLICT and stays as it ended; anyone else's task is 404", async () => {
    const user = await resetUser();
    await connectMailbox(user, mailbox);
    const taskId = await startWaitingTask(user);
    const other = await TestUser.create();
    const foreign = await other.call("POST", `/api/tasks/${taskId}/cancel`);
    expect(foreign.status).toBe(404);
    expect(((await foreign.json()) as { code: string }).code).toBe("NOT_FOUND");

    expect((await user.call("POST", `/api/tasks/${taskId}/cancel`)).status).toBe(200);
    const again = await user.call("POST", `/api/tasks/${taskId}/cancel`);
    expect(again.status).toBe(409);
    expect(((await again.json()) as { code: string }).code).toBe("CONFLICT");
    expect((await task(user, taskId)).status).toBe("cancelled");
  }, 60_000);

  it("a task that failed cannot be cancelled", async () => {
    const user = await resetUser();
    await connectMailbox(user, mailbox);
    const keys = await clientKeys();
    const res = await user.call("POST", "/api/tasks/reset", {
      body: {
        serviceUrl: `${site}/forgot-captcha`,
        email: mailbox,
        clientPublicKey: keys.publicJwk,
      },
    });
    const { taskId } = (await res.json()) as { taskId: string };
    const events = await readStream(await user.call("GET", `/api/tasks/${taskId}/stream`), 60_000);
    expect(events.at(-1)?.data).toMatchObject({ status: "failed", error: "captcha" });
    expect((await user.call("POST", `/api/tasks/${taskId}/cancel`)).status).toBe(409);
    expect((await task(user, taskId)).status).toBe("failed");
  }, 90_000);

  it("a malformed id changes nothing and gets the error body", async () => {
    const user = await TestUser.create();
    const res = await user.call("POST", `/api/tasks/${"x".repeat(300)}/cancel`);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });
  });
});
