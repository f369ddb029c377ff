import { describe, expect, it } from "vitest";
import {
  clientKeys,
  connectMailbox,
  imap,
  readStream,
  resetUser,
  site,
  type SseEvent,
} from "./support";

const account = imap.mailboxes.otp;
const post = (path: string, body: unknown) =>
  fetch(`${site}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
const stats = async () =>
  (await (await fetch(`${site}/__test/stats`)).json()) as { codesRejected: number };

async function start(flow: string) {
  const user = await resetUser();
  await connectMailbox(user, account);
  const oldPassword = `Old-${crypto.randomUUID()}`;
  await post("/__test/users", { email: account, password: oldPassword });
  const keys = await clientKeys();
  const res = await user.call("POST", "/api/tasks/reset", {
    body: { serviceUrl: `${site}/${flow}/forgot`, email: account, clientPublicKey: keys.publicJwk },
  });
  expect(res.status).toBe(201);
  const { taskId } = (await res.json()) as { taskId: string };
  return { user, keys, taskId, oldPassword };
}

const statuses = (events: SseEvent[]) =>
  events.filter((e) => e.event === "status").map((e) => e.data.status);

describe("code (OTP) resets end to end (real Chromium, real Dovecot, local site)", () => {
  it("takes the code from the mail with the service's otp patterns", async () => {
    const { user, keys, taskId, oldPassword } = await start("otp");
    const rejectedBefore = (await stats()).codesRejected;
    const events = await readStream(await user.call("GET", `/api/tasks/${taskId}/stream`), 90_000);
    const last = events.at(-1) as SseEvent;
    expect(last.data.error).toBeUndefined();
    expect(last.data.status).toBe("completed");
    expect(statuses(events)).toContain("waiting_for_otp");
    expect(statuses(events)).not.toContain("waiting_for_email");
    // The local Dovecot adds no Authentication-Results: the task says the code was used unverified.
    expect(last.data.mailAuthentication).toBe("none");
    const newPassword = await keys.open(last.data.newPassword as string);
    expect((await post("/login", { email: account, password: newPassword })).status).toBe(200);
    expect((await post("/login", { email: account, password: oldPassword })).status).toBe(401);
    expect((await stats()).codesRejected).toBe(rejectedBefore);
    const task = (await (await user.call("GET", `/api/jobs/${taskId}`)).json()) as {
      steps: { name: string; status: string }[];
    };
    expect(task.steps.map((s) => s.status)).toEqual([
      "completed",
      "completed",
      "completed",
      "completed",
      "completed",
    ]);
  }, 120_000);

  it("takes the code from the user when the mail has none (code sent by text message)", async () => {
    const { user, keys, taskId } = await start("otp-phone");
    let accepted: unknown;
    const events = await readStream(
      await user.call("GET", `/api/tasks/${taskId}/stream`),
      90_000,
      async (e) => {
        if (e.event !== "status" || e.data.status !== "waiting_for_otp" || accepted !== undefined)
          return;
        const { code } = (await (
          await fetch(`${site}/__test/code?email=${encodeURIComponent(account)}`)
        ).json()) as { code: string };
        accepted = await (
          await user.call("POST", `/api/tasks/${taskId}/otp`, { body: { code } })
        ).json();
      },
    );
    expect(accepted).toEqual({ accepted: true });
    const last = events.at(-1) as SseEvent;
    expect(last.data).toMatchObject({ status: "completed" });
    // A code the owner typed needs no mail verdict.
    expect(last.data.mailAuthentication).toBeUndefined();
    const newPassword = await keys.open(last.data.newPassword as string);
    expect((await post("/login", { email: account, password: newPassword })).status).toBe(200);
  }, 120_000);

  it("a wrong code from the user ends as failed; no code at all ends within the bound", async () => {
    const wrong = await start("otp-phone");
    const events = await readStream(
      await wrong.user.call("GET", `/api/tasks/${wrong.taskId}/stream`),
      90_000,
      async (e) => {
        if (e.event === "status" && e.data.status === "waiting_for_otp")
          await wrong.user.call("POST", `/api/tasks/${wrong.taskId}/otp`, {
            body: { code: "000000" },
          });
      },
    );
    expect(events.at(-1)?.data).toMatchObject({
      status: "failed",
      error: "the site did not accept the code",
    });

    const silent = await start("otp-phone");
    const t0 = Date.now();
    const quiet = await readStream(
      await silent.user.call("GET", `/api/tasks/${silent.taskId}/stream`),
      90_000,
    );
    expect(quiet.at(-1)?.data).toMatchObject({
      status: "failed",
      error: "no code was supplied in time",
    });
    expect(Date.now() - t0).toBeLessThan(60_000);
  }, 150_000);
});
