import { env } from "cloudflare:test";
import { SELF } from "../support/worker";
import { describe, expect, it } from "vitest";
import { clientKeys, connectMailbox, imap, readStream, resetUser, site } from "./support";

async function siteLogin(email: string, password: string): Promise<number> {
  return (
    await fetch(`${site}/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password }),
    })
  ).status;
}

describe("password reset end to end (real Chromium, real Dovecot, local site)", () => {
  it("resets the password, seals it to the client, and the new password logs in", async () => {
    const user = await resetUser();
    await connectMailbox(user);
    const oldPassword = `Old-${crypto.randomUUID()}`;
    await fetch(`${site}/__test/users`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: imap.user, password: oldPassword }),
    });
    expect(await siteLogin(imap.user, oldPassword)).toBe(200);
    const keys = await clientKeys();
    const res = await user.call("POST", "/api/tasks/reset", {
      body: { serviceUrl: `${site}/login`, email: imap.user, clientPublicKey: keys.publicJwk },
    });
    expect(res.status).toBe(201);
    const { taskId } = (await res.json()) as { taskId: string };
    const events = await readStream(await user.call("GET", `/api/tasks/${taskId}/stream`), 90_000);
    const statuses = events.filter((e) => e.event === "status").map((e) => e.data.status);
    const last = events.at(-1) as unknown as {
      data: { status: string; newPassword?: string; error?: string };
    };
    expect(last.data.error).toBeUndefined();
    expect(last.data.status).toBe("completed");
    expect(statuses).toContain("waiting_for_email");
    expect(
      events
        .filter((e) => e.event === "screenshot")
        .every((e) => String(e.data.url).startsWith("data:image/jpeg;base64,")),
    ).toBe(true);
    expect(events.filter((e) => e.event === "screenshot").length).toBeGreaterThanOrEqual(4);
    const jwe = last.data.newPassword as string;
    expect(JSON.parse(atob(jwe.split(".")[0].replace(/-/g, "+").replace(/_/g, "/")))).toMatchObject(
      { alg: "ECDH-ES", enc: "A256GCM" },
    );
    const newPassword = await keys.open(jwe);
    expect(newPassword).not.toBe(oldPassword);
    expect(await siteLogin(imap.user, newPassword)).toBe(200);
    expect(await siteLogin(imap.user, oldPassword)).toBe(401);

    const task = (await (await user.call("GET", `/api/jobs/${taskId}`)).json()) as {
      status: string;
      startedAt: string;
      completedAt: string;
      steps: { name: string; status: string; duration: number }[];
    };
    expect(task.status).toBe("completed");
    expect(
      task.steps.every(
        (s) => s.status === "completed" && Number.isInteger(s.duration) && s.duration >= 0,
      ),
    ).toBe(true);
    expect(JSON.stringify(task)).not.toContain(newPassword);

    // D17: audited start and completion; the owner is notified, and neither record holds the password.
    const audit = await env.DB.prepare(
      "SELECT action, details FROM audit_events WHERE user_id = ? AND target_id = ? ORDER BY created_at",
    )
      .bind(user.id, taskId)
      .all<{ action: string; details: string }>();
    expect(audit.results.map((a) => a.action)).toEqual(["reset.start", "reset.complete"]);
    const notes = (await (await user.call("GET", "/api/notifications")).json()) as {
      notifications: { type: string; body: string; metadata: Record<string, unknown> }[];
    };
    const note = notes.notifications.find((n) => n.type === "password_reset");
    expect(note?.metadata).toMatchObject({ task_id: taskId, service: "localhost" });
    expect(JSON.stringify(audit.results) + JSON.stringify(note)).not.toContain(newPassword);

    const replay = await readStream(await user.call("GET", `/api/tasks/${taskId}/stream`), 5_000);
    expect(replay).toHaveLength(1);
    expect(replay[0].data.status).toBe("completed");
    expect(
      await user
        .call("POST", `/api/tasks/${taskId}/otp`, { body: { code: "123456" } })
        .then((r) => r.json()),
    ).toEqual({ accepted: false });
  }, 120_000);

  it("a captcha on the forgot-password form ends as failed with the reason", async () => {
    const user = await resetUser();
    await connectMailbox(user);
    const keys = await clientKeys();
    const res = await user.call("POST", "/api/tasks/reset", {
      body: {
        serviceUrl: `${site}/forgot-captcha`,
        email: imap.user,
        clientPublicKey: keys.publicJwk,
      },
    });
    const { taskId } = (await res.json()) as { taskId: string };
    const events = await readStream(await user.call("GET", `/api/tasks/${taskId}/stream`), 60_000);
    expect(events.at(-1)?.data).toMatchObject({ status: "failed", error: "captcha" });
    const task = (await (await user.call("GET", `/api/jobs/${taskId}`)).json()) as {
      status: string;
      error: string;
      steps: { name: string; status: string }[];
    };
    expect(task).toMatchObject({ status: "failed", error: "captcha" });
    expect(task.steps.map((s) => s.status)).toEqual([
      "failed",
      "skipped",
      "skipped",
      "skipped",
      "skipped",
    ]);
  }, 90_000);

  it("no email within the bounded wait ends as failed", async () => {
    const user = await resetUser();
    await connectMailbox(user, imap.mailboxes.silent);
    const keys = await clientKeys();
    const res = await user.call("POST", "/api/tasks/reset", {
      body: {
        serviceUrl: `${site}/forgot-password`,
        email: imap.mailboxes.silent,
        clientPublicKey: keys.publicJwk,
      },
    });
    const { taskId } = (await res.json()) as { taskId: string };
    const events = await readStream(await user.call("GET", `/api/tasks/${taskId}/stream`), 60_000);
    expect(events.at(-1)?.data).toMatchObject({
      status: "failed",
      error: "no reset email arrived in time",
    });
  }, 90_000);
});
