import { env } from "cloudflare:test";
import { SELF } from "../support/worker";
import { describe, expect, it } from "vitest";
import { dbFor, directoryDb } from "../../src/db/client";
import { resolveChatTarget } from "../../src/domains/reset/chat-intent";
import { ChatRenderer } from "../../src/domains/reset/chat-stream";
import { resolveService } from "../../src/domains/registry/resolve";
import { expectErrorBody } from "../support/auth";
import { createEntry } from "../support/fixtures";
import { connectMailbox, imap, resetUser, site } from "./support";

describe("POST /api/chat/reset: refusals before the stream", () => {
  it("another user's passwordId is 404 with the standard body", async () => {
    const owner = await resetUser();
    const { id } = await createEntry(owner, { website: "github.com" });
    const other = await resetUser();
    await connectMailbox(other);
    const res = await other.call("POST", "/api/chat/reset", {
      body: { message: "reset it", passwordId: id },
    });
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    await expectErrorBody(res, 404, "NOT_FOUND");
    await expectErrorBody(
      await other.call("POST", "/api/chat/reset", {
        body: { message: "reset it", passwordId: "no-such-entry" },
      }),
      404,
      "NOT_FOUND",
    );
  });

  it("an unknown serviceId is 404", async () => {
    const user = await resetUser();
    await connectMailbox(user);
    await expectErrorBody(
      await user.call("POST", "/api/chat/reset", {
        body: { message: "reset", serviceId: "no-such-service.example" },
      }),
      404,
      "NOT_FOUND",
    );
  });

  it("a message naming no service is 400 on message; a missing or oversized message is 400", async () => {
    const user = await resetUser();
    await connectMailbox(user);
    const err = await expectErrorBody(
      await user.call("POST", "/api/chat/reset", {
        body: { message: "please help me with my password" },
      }),
      400,
      "VALIDATION_ERROR",
    );
    expect(err.details).toEqual([
      { field: "message", message: expect.stringMatching(/name the service/) },
    ]);
    expect(
      (
        await expectErrorBody(
          await user.call("POST", "/api/chat/reset", { body: {} }),
          400,
          "VALIDATION_ERROR",
        )
      ).details?.[0].field,
    ).toBe("message");
    await expectErrorBody(
      await user.call("POST", "/api/chat/reset", { body: { message: "x".repeat(2001) } }),
      400,
      "VALIDATION_ERROR",
    );
    await expectErrorBody(
      await user.call("POST", "/api/chat/reset", { body: { message: "github", email: "nope" } }),
      400,
      "VALIDATION_ERROR",
    );
  });

  it("no mailbox is 422; a refused URL is 400 on serviceUrl even without one (D12)", async () => {
    const user = await resetUser();
    await expectErrorBody(
      await user.call("POST", "/api/chat/reset", { body: { message: "reset my github password" } }),
      422,
      "UNPROCESSABLE",
    );
    const err = await expectErrorBody(
      await user.call("POST", "/api/chat/reset", {
        body: { message: "reset http://u:p@example.test/login" },
      }),
      400,
      "VALIDATION_ERROR",
    );
    expect(err.details?.[0].field).toBe("serviceUrl");
  });

  it("needs authentication and a CSRF token", async () => {
    const res = await SELF.fetch("https://vault.test/api/chat/reset", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: "github" }),
    });
    await expectErrorBody(res, 401, "UNAUTHORIZED");
    const user = await resetUser();
    await expectErrorBody(
      await user.call("POST", "/api/chat/reset", { body: { message: "github" }, csrf: false }),
      403,
      "FORBIDDEN",
    );
  });

  it("shares the 5 per 5 minutes budget with POST /api/tasks/reset", async () => {
    const user = await resetUser();
    await connectMailbox(user);
    const url = `${site}/forgot-captcha`;
    for (let i = 0; i < 3; i++)
      expect(
        (
          await user.call("POST", "/api/tasks/reset", {
            body: { serviceUrl: url, email: imap.user },
          })
        ).status,
      ).toBe(201);
    for (let i = 0; i < 2; i++) {
      const res = await user.call("POST", "/api/chat/reset", { body: { message: `reset ${url}` } });
      expect(res.status).toBe(200);
      await res.body?.cancel();
    }
    const chat = await user.call("POST", "/api/chat/reset", { body: { message: `reset ${url}` } });
    await expectErrorBody(chat.clone(), 429, "RATE_LIMITED");
    expect(chat.headers.get("retry-after")).toBeTruthy();
    await expectErrorBody(
      await user.call("POST", "/api/tasks/reset", { body: { serviceUrl: url, email: imap.user } }),
      429,
      "RATE_LIMITED",
    );
  });
});

describe("chat intent and rendering", () => {
  const db = () => dbFor(env, "intent");

  it("finds the service by name, domain, URL or serviceId, and the account address", async () => {
    const byName = await resolveChatTarget(db(), directoryDb(env), "intent", {
      message: "Reset my GitHub password for me@example.org",
    });
    expect(byName).toMatchObject({
      svc: { domain: "github.com", known: true },
      email: "me@example.org",
    });
    expect(byName.serviceUrl).toBe((await resolveService(db(), "github.com")).resetUrl);
    expect(
      (
        await resolveChatTarget(db(), directoryDb(env), "intent", {
          message: "my gitlab.com account, please",
        })
      ).svc.domain,
    ).toBe("gitlab.com");
    const byUrl = await resolveChatTarget(db(), directoryDb(env), "intent", {
      message: "reset https://accounts.example.org/signin?x=1.",
    });
    expect(byUrl).toMatchObject({
      svc: { domain: "accounts.example.org", known: false },
      serviceUrl: "https://accounts.example.org/signin?x=1",
      email: null,
    });
    expect(
      (
        await resolveChatTarget(db(), directoryDb(env), "intent", {
          message: "this one",
          serviceId: "github.com",
          email: "Me@Example.org",
        })
      ).email,
    ).toBe("me@example.org");
    expect(
      (
        await resolveChatTarget(db(), directoryDb(env), "intent", {
          message: "not githubber, gitlab",
        })
      ).svc.domain,
    ).toBe("gitlab.com");
    expect(
      (await resolveChatTarget(db(), directoryDb(env), "intent", { message: "my X account" })).svc
        .known,
    ).toBe(true);
    await expect(
      resolveChatTarget(db(), directoryDb(env), "intent", { message: "put it in a box for later" }),
    ).rejects.toMatchObject({ status: 400 });
  });

  it("the password section never carries the sealed or clear password", async () => {
    const svc = await resolveService(db(), "github.com");
    const r = new ChatRenderer({
      taskId: "t1",
      svc,
      serviceUrl: "https://github.com/password_reset",
      email: "a@b.test",
      waitSeconds: 120,
    });
    const out =
      r.header() +
      r.status({ status: "running", step: "navigate" }) +
      r.status({ status: "running", step: "navigate" }) +
      r.status({ status: "completed", newPassword: "eyJ.SEALED.JWE" });
    expect(out).not.toContain("SEALED");
    expect(out.match(/event: section\ndata: progress/g)).toHaveLength(1);
    expect(out).toContain("event: section\ndata: password\n\ndata: **New password set.**\n\n");
    expect(
      out.endsWith(
        "event: section\ndata: result\n\ndata: **Completed.** Your GitHub password was reset.\n\n",
      ),
    ).toBe(true);
  });

  it("a code page is announced in the mailbox section with where to send the code; failures end in result", async () => {
    const svc = await resolveService(db(), "github.com");
    const r = new ChatRenderer({
      taskId: "t2",
      svc,
      serviceUrl: "https://github.com/password_reset",
      email: "a@b.test",
      waitSeconds: 120,
    });
    const otp = r.status({ status: "waiting_for_otp", step: "wait_for_email" });
    expect(otp.startsWith("event: section\ndata: gmail\n\n")).toBe(true);
    expect(otp).toContain("`POST /api/tasks/t2/otp`");
    expect(r.status({ status: "failed", error: "no code was supplied in time" })).toBe(
      "event: section\ndata: result\n\ndata: **Failed:** no code was supplied in time.\n\n",
    );
  });
});
