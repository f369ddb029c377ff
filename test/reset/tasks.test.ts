import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { expectErrorBody } from "../support/auth";
import { clientKeys, connectMailbox, imap, resetUser, site } from "./support";

describe("POST /api/tasks/reset: errors and security", () => {
  it("422 UNPROCESSABLE without a connected mailbox", async () => {
    const user = await resetUser();
    await expectErrorBody(
      await user.call("POST", "/api/tasks/reset", {
        body: { serviceUrl: `${site}/forgot-password`, email: "a@example.test" },
      }),
      422,
      "UNPROCESSABLE",
    );
  });

  it("a code-host or identity-provider sign-in is not a mailbox: still 422, nothing queued", async () => {
    const user = await resetUser();
    const now = new Date().toISOString();
    for (const provider of ["codehost", "idp"]) {
      await env.DB.prepare(
        "INSERT INTO mail_integrations (id, user_id, provider, email, status, secret, connected_at, updated_at) VALUES (?, ?, ?, 'a@example.test', 'active', 'sealed', ?, ?)",
      )
        .bind(crypto.randomUUID(), user.id, provider, now, now)
        .run();
    }
    await expectErrorBody(
      await user.call("POST", "/api/tasks/reset", {
        body: { serviceUrl: `${site}/forgot-password`, email: "a@example.test" },
      }),
      422,
      "UNPROCESSABLE",
    );
    const tasks = await env.DB.prepare("SELECT count(*) AS n FROM reset_jobs WHERE user_id = ?")
      .bind(user.id)
      .first<{ n: number }>();
    expect(tasks?.n).toBe(0);
  });

  it("a refused URL is 400 on serviceUrl before the mailbox check (D12)", async () => {
    const user = await resetUser();
    for (const serviceUrl of [
      "ftp://example.test/",
      "javascript:alert(1)",
      "file:///etc/passwd",
      "http://u:p@example.test/",
    ]) {
      const err = await expectErrorBody(
        await user.call("POST", "/api/tasks/reset", {
          body: { serviceUrl, email: "a@example.test" },
        }),
        400,
        "VALIDATION_ERROR",
      );
      expect(err.details?.[0].field).toBe("serviceUrl");
    }
  });

  it("validates email and the client key; a private key is refused", async () => {
    const user = await resetUser();
    await expectErrorBody(
      await user.call("POST", "/api/tasks/reset", { body: { serviceUrl: site, email: "nope" } }),
      400,
      "VALIDATION_ERROR",
    );
    const { publicJwk } = await clientKeys();
    const err = await expectErrorBody(
      await user.call("POST", "/api/tasks/reset", {
        body: {
          serviceUrl: site,
          email: "a@example.test",
          clientPublicKey: { ...publicJwk, d: "x".repeat(43) },
        },
      }),
      400,
      "VALIDATION_ERROR",
    );
    expect(err.details?.[0].field).toMatch(/^clientPublicKey/);
    await expectErrorBody(
      await user.call("POST", "/api/tasks/reset", {
        body: { serviceUrl: site, email: "a@example.test", clientPublicKey: { kty: "RSA" } },
      }),
      400,
      "VALIDATION_ERROR",
    );
  });

  it("another user's job, stream and OTP are 404", async () => {
    const owner = await resetUser();
    await connectMailbox(owner);
    const res = await owner.call("POST", "/api/tasks/reset", {
      body: { serviceUrl: `${site}/forgot-captcha`, email: imap.user },
    });
    expect(res.status).toBe(201);
    const { taskId, status } = (await res.json()) as { taskId: string; status: string };
    expect(status).toBe("pending");
    const other = await resetUser();
    await expectErrorBody(await other.call("GET", `/api/jobs/${taskId}`), 404, "NOT_FOUND");
    await expectErrorBody(await other.call("GET", `/api/tasks/${taskId}/stream`), 404, "NOT_FOUND");
    await expectErrorBody(
      await other.call("POST", `/api/tasks/${taskId}/otp`, { body: { code: "123456" } }),
      404,
      "NOT_FOUND",
    );
    const task = (await (await owner.call("GET", `/api/jobs/${taskId}`)).json()) as {
      id: string;
      service: string;
      steps: { name: string }[];
    };
    expect(task.id).toBe(taskId);
    expect(task.service).toBe("localhost");
    expect(task.steps.map((s) => s.name)).toEqual([
      "navigate",
      "enter_email",
      "wait_for_email",
      "follow_link",
      "set_password",
    ]);
  });

  it("allows 5 reset tasks per 5 minutes", async () => {
    const user = await resetUser();
    await connectMailbox(user);
    for (let i = 0; i < 5; i++)
      expect(
        (
          await user.call("POST", "/api/tasks/reset", {
            body: { serviceUrl: `${site}/forgot-captcha`, email: imap.user },
          })
        ).status,
      ).toBe(201);
    const res = await user.call("POST", "/api/tasks/reset", {
      body: { serviceUrl: `${site}/forgot-captcha`, email: imap.user },
    });
    await expectErrorBody(res.clone(), 429, "RATE_LIMITED");
    expect(res.headers.get("retry-after")).toBeTruthy();
  });
});
