import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { buildApp } from "../../src/app";

type Check = {
  binding: string;
  kind: string;
  ok: boolean;
  ms?: number;
  error?: string;
  note?: string;
};
type Health = { status: string; checks: Check[] };

async function health(vars: Record<string, unknown>) {
  const errors: string[] = [];
  const spy = vi
    .spyOn(console, "error")
    .mockImplementation((...a: unknown[]) => void errors.push(a.join(" ")));
  try {
    const res = await buildApp().request("/api/health", {}, vars);
    const text = await res.text();
    return { res, text, body: JSON.parse(text) as Health, errors };
  } finally {
    spy.mockRestore();
  }
}
const byName = (h: Health, name: string) => h.checks.find((c) => c.binding === name);
const broken = {
  prepare: () => ({ first: () => Promise.reject(new Error("D1_ERROR: network connection lost")) }),
};

describe("GET /api/health: the spec's status, and whether each binding answers", () => {
  it('answers 200 {status: "ok"} with a check for every shard, the directory, the bucket and the queues', async () => {
    const { res, body } = await health({ ...env });
    expect(res.status).toBe(200);
    expect(body.status).toBe("ok");
    const shards = Object.keys(env).filter((k) => /^DB_\d+$/.test(k));
    for (const name of [...shards, "ATTACHMENTS"])
      expect(byName(body, name)).toMatchObject({ ok: true, ms: expect.any(Number) });
    if ("DIRECTORY" in env)
      expect(byName(body, "DIRECTORY")).toMatchObject({ kind: "d1", ok: true });
    expect(byName(body, "RESET_QUEUE")).toMatchObject({ kind: "queue", ok: true });
    expect(body.checks.every((c) => c.ok)).toBe(true);
  });

  it("names no database, bucket, id or secret", async () => {
    const { text } = await health({ ...env });
    for (const secret of [
      env.CSRF_SECRET,
      env.DATA_ENCRYPTION_KEY,
      env.VAPID_PRIVATE_KEY,
      "credential-vault",
      "00000000-0000",
    ])
      expect(text).not.toContain(String(secret));
  });

  it("a shard that does not answer: 503 degraded, that shard named, the cause logged with the request id only", async () => {
    const { res, body, text, errors } = await health({ ...env, DB_0: broken });
    expect(res.status).toBe(503);
    expect(body.status).toBe("degraded");
    expect(byName(body, "DB_0")).toMatchObject({ kind: "d1", ok: false, error: "unreachable" });
    expect(byName(body, "ATTACHMENTS")?.ok).toBe(true);
    expect(text).not.toContain("network connection lost");
    const line = errors
      .map((e) => JSON.parse(e) as Record<string, unknown>)
      .find((l) => l.msg === "health probe failed");
    expect(line).toEqual({
      level: "error",
      msg: "health probe failed",
      requestId: res.headers.get("X-Request-Id"),
      binding: "DB_0",
      error: "Error",
    });
  });

  it("a bucket that hangs counts as down after the probe's timeout", async () => {
    const hanging = { head: () => new Promise(() => {}) };
    const { res, body } = await health({ ...env, ATTACHMENTS: hanging });
    expect(res.status).toBe(503);
    expect(byName(body, "ATTACHMENTS")).toMatchObject({ kind: "r2", ok: false, error: "timeout" });
  });

  it("the mail queue is required when mail goes over HTTP, and left out when it does not", async () => {
    const http = {
      ...env,
      MAIL_TRANSPORT: "http",
      MAIL_API_URL: "https://mail.example.test/emails",
      MAIL_API_KEY: "key-1",
      MAIL_FROM: "vault@example.test",
    };
    const missing = await health({ ...http, MAIL_QUEUE: undefined });
    expect(missing.res.status).toBe(503);
    expect(byName(missing.body, "MAIL_QUEUE")).toEqual({
      binding: "MAIL_QUEUE",
      kind: "queue",
      ok: false,
      error: "not bound",
    });
    const outbox = await health({ ...env, MAIL_QUEUE: undefined });
    expect(outbox.res.status).toBe(200);
    expect(byName(outbox.body, "MAIL_QUEUE")).toBeUndefined();
  });
});
