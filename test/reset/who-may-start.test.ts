import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import { fingerprint } from "../support/devices";
import { clientKeys, connectMailbox, imap, readStream, resetUser, site } from "./support";

const RESET_ROUTES = [
  {
    path: "/api/tasks/reset",
    body: (email: string) => ({ serviceUrl: `${site}/forgot-captcha`, email }),
  },
  {
    path: "/api/chat/reset",
    body: (email: string) => ({ message: `reset ${site}/forgot-captcha`, email }),
  },
];

async function taskCount(userId: string): Promise<number> {
  return (
    (
      await env.DB.prepare("SELECT count(*) AS n FROM reset_jobs WHERE user_id = ?")
        .bind(userId)
        .first<{ n: number }>()
    )?.n ?? -1
  );
}

async function auditActions(userId: string): Promise<string[]> {
  const rows = await env.DB.prepare(
    "SELECT action FROM audit_events WHERE user_id = ? AND action LIKE 'reset.%' ORDER BY created_at",
  )
    .bind(userId)
    .all<{ action: string }>();
  return rows.results.map((r) => r.action);
}

describe("who may start a reset (DECISIONS D17)", () => {
  it("a sign-in older than 300 s is 401 STEP_UP_REQUIRED with max_age=300, nothing created", async () => {
    const user = await resetUser({ authAge: 301 });
    await connectMailbox(user);
    for (const r of RESET_ROUTES) {
      const res = await user.call("POST", r.path, { body: r.body(imap.user) });
      expect(res.headers.get("www-authenticate")).toBe(
        'Bearer error="insufficient_user_authentication", max_age=300',
      );
      expect((await expectErrorBody(res, 401, "STEP_UP_REQUIRED")).maxAge).toBe(300);
    }
    expect(await taskCount(user.id)).toBe(0);
  });

  it("an unknown device (no fingerprint, or one the user has not registered) is 403 FORBIDDEN", async () => {
    const user = await TestUser.create();
    await connectMailbox(user);
    for (const r of RESET_ROUTES) {
      await expectErrorBody(
        await user.call("POST", r.path, { body: r.body(imap.user) }),
        403,
        "FORBIDDEN",
      );
      await expectErrorBody(
        await user.call("POST", r.path, {
          body: r.body(imap.user),
          headers: { "x-device-fingerprint": fingerprint() },
        }),
        403,
        "FORBIDDEN",
      );
    }
    const other = await resetUser();
    await expectErrorBody(
      await user.call("POST", RESET_ROUTES[0].path, {
        body: RESET_ROUTES[0].body(imap.user),
        headers: other.defaultHeaders,
      }),
      403,
      "FORBIDDEN",
    );
    expect(await taskCount(user.id)).toBe(0);
  });

  it("an email that is not one of the caller's connected mailboxes is 422, nothing created", async () => {
    const user = await resetUser();
    await connectMailbox(user);
    for (const r of RESET_ROUTES) {
      await expectErrorBody(
        await user.call("POST", r.path, { body: r.body("victim@example.test") }),
        422,
        "UNPROCESSABLE",
      );
    }
    // Another user's mailbox address is not the caller's either.
    const stranger = await resetUser();
    await connectMailbox(stranger, imap.mailboxes.chat);
    await expectErrorBody(
      await user.call("POST", "/api/tasks/reset", {
        body: RESET_ROUTES[0].body(imap.mailboxes.chat),
      }),
      422,
      "UNPROCESSABLE",
    );
    expect(await taskCount(user.id)).toBe(0);
    expect(await auditActions(user.id)).toEqual([]);
  });

  it("the connected address is accepted in any letter case; the task is audited reset.start then reset.fail", async () => {
    const user = await resetUser();
    await connectMailbox(user);
    const { publicJwk } = await clientKeys();
    const res = await user.call("POST", "/api/tasks/reset", {
      body: {
        serviceUrl: `${site}/forgot-captcha`,
        email: imap.user.toUpperCase(),
        clientPublicKey: publicJwk,
      },
    });
    expect(res.status).toBe(201);
    const { taskId } = (await res.json()) as { taskId: string };
    expect(await auditActions(user.id)).toEqual(["reset.start"]);
    const events = await readStream(await user.call("GET", `/api/tasks/${taskId}/stream`), 60_000);
    expect(events.at(-1)?.data).toMatchObject({ status: "failed", error: "captcha" });
    expect(await auditActions(user.id)).toEqual(["reset.start", "reset.fail"]);
    const audit = await env.DB.prepare(
      "SELECT target_id, details FROM audit_events WHERE user_id = ? AND action = 'reset.fail'",
    )
      .bind(user.id)
      .first<{ target_id: string; details: string }>();
    expect(audit?.target_id).toBe(taskId);
    expect(JSON.parse(audit?.details ?? "{}")).toMatchObject({
      service: "localhost",
      error: "captcha",
    });
    const notes = await env.DB.prepare(
      "SELECT count(*) AS n FROM notifications WHERE user_id = ? AND type = 'password_reset'",
    )
      .bind(user.id)
      .first<{ n: number }>();
    expect(notes?.n).toBe(0);
  }, 90_000);
});
