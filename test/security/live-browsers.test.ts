import { env, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { liveBrowserCounts } from "../../src/db/live-browsers";
import { createResetTask } from "../../src/domains/reset/service";
import { loadConfig } from "../../src/env";
import { expectErrorBody } from "../support/auth";
import { createEntry } from "../support/fixtures";
import { connectMailbox, imap, resetUser, site as resetSite } from "../reset/support";
import { site as shareSite, siteAccount } from "../support/session-shares";
import type { TestUser } from "../support/auth";

const now = () => new Date().toISOString();

async function liveReset(userId: string, status = "running") {
  await env.DB.prepare(
    "INSERT INTO reset_jobs (id, user_id, service, service_url, email, status, steps, created_at, updated_at) VALUES (?, ?, 'localhost', 'https://example.test/', 'a@example.test', ?, '[]', ?, ?)",
  )
    .bind(crypto.randomUUID(), userId, status, now(), now())
    .run();
}

async function liveShare(userId: string, status = "active") {
  await env.DB.prepare(
    `INSERT INTO session_shares (id, owner_id, account_id, service_name, login_url, token_hash, sealed_credentials, access_type, login_method,
       max_viewers, watermark_enabled, status, current_viewers, duration_minutes, estimated_cost_cents, expires_at, created_at, updated_at)
     VALUES (?, ?, 'a', 's', 'https://example.test/', ?, '', 'view_only', 'manual', 1, 1, ?, 0, 15, 1, ?, ?, ?)`,
  )
    .bind(
      crypto.randomUUID(),
      userId,
      crypto.randomUUID(),
      status,
      new Date(Date.now() + 60_000).toISOString(),
      now(),
      now(),
    )
    .run();
}

const resetBody = () => ({ serviceUrl: `${resetSite}/forgot-captcha`, email: imap.user });

async function shareCreate(user: TestUser) {
  const account = await siteAccount();
  const entry = await createEntry(user, {
    name: "Test site",
    url: `${shareSite()}/login`,
    website: "127.0.0.1",
  });
  return user.call("POST", "/api/session-shares", {
    body: {
      accountId: entry.id,
      decryptedUsername: account.username,
      decryptedPassword: account.password,
    },
  });
}

async function resetCount(userId: string) {
  return (
    await env.DB.prepare("SELECT count(*) AS n FROM reset_jobs WHERE user_id = ?")
      .bind(userId)
      .first<{ n: number }>()
  )?.n;
}

const cap = loadConfig(env as never).MAX_LIVE_BROWSERS_PER_USER;

/** `n` live browsers for the user, resets and session shares mixed. */
async function fill(userId: string, n: number) {
  for (let i = 0; i < n; i++)
    await (i % 2
      ? liveShare(userId, i % 4 === 1 ? "active" : "login_in_progress")
      : liveReset(userId, i % 4 === 0 ? "waiting_for_email" : "pending"));
}

describe("live browsers are capped per user (resets and session shares together) and per deployment", () => {
  it("the default cap is 2 per user", () => {
    const { MAX_LIVE_BROWSERS_PER_USER: _, ...rest } = env as unknown as Record<string, unknown>;
    expect(loadConfig({ ...rest } as never).MAX_LIVE_BROWSERS_PER_USER).toBe(2);
  });

  it("at the cap, another reset or session share is 429 with Retry-After, nothing created", async () => {
    const user = await resetUser();
    await connectMailbox(user);
    await fill(user.id, cap);
    const resetsBefore = await resetCount(user.id);
    const res = await user.call("POST", "/api/tasks/reset", { body: resetBody() });
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    await expectErrorBody(res, 429, "RATE_LIMITED");
    expect(await resetCount(user.id)).toBe(resetsBefore);
    const share = await shareCreate(user);
    expect(Number(share.headers.get("retry-after"))).toBeGreaterThan(0);
    await expectErrorBody(share, 429, "RATE_LIMITED");
    expect((await liveBrowserCounts(env as never, user.id)).user).toBe(cap);
  });

  it("ended ones do not count", async () => {
    const user = await resetUser();
    await connectMailbox(user);
    await fill(user.id, cap - 1);
    await liveReset(user.id, "completed");
    await liveReset(user.id, "failed");
    await liveShare(user.id, "revoked");
    await liveShare(user.id, "expired");
    expect((await user.call("POST", "/api/tasks/reset", { body: resetBody() })).status).toBe(201);
  });

  it("parallel starts never pass the cap", async () => {
    const user = await resetUser();
    await connectMailbox(user);
    await fill(user.id, cap - 1);
    const results = await Promise.all(
      [0, 1, 2].map(() => user.call("POST", "/api/tasks/reset", { body: resetBody() })),
    );
    expect(results.every((r) => r.status === 201 || r.status === 429)).toBe(true);
    expect(results.filter((r) => r.status === 201).length).toBeLessThanOrEqual(1);
    expect((await liveBrowserCounts(env as never, user.id)).user).toBeLessThanOrEqual(cap);
  });

  it("a scheduled share does not count until it starts; starting at the cap, it fails with the reason", async () => {
    const user = await resetUser();
    await fill(user.id, cap);
    const account = await siteAccount();
    const entry = await createEntry(user, {
      name: "Test site",
      url: `${shareSite()}/login`,
      website: "127.0.0.1",
    });
    const res = await user.call("POST", "/api/session-shares", {
      body: {
        accountId: entry.id,
        decryptedUsername: account.username,
        decryptedPassword: account.password,
        scheduledStart: new Date(Date.now() + 10 * 60_000).toISOString(),
      },
    });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    expect(
      await runDurableObjectAlarm(env.SESSION_SHARES.get(env.SESSION_SHARES.idFromName(id))),
    ).toBe(true);
    const row = await env.DB.prepare(
      "SELECT status, failure_reason, sealed_credentials FROM session_shares WHERE id = ?",
    )
      .bind(id)
      .first();
    expect(row).toEqual({
      status: "failed",
      failure_reason: "too many automated browsers were running at its start",
      sealed_credentials: "",
    });
  });

  it("the deployment's cap (MAX_LIVE_BROWSERS) refuses anyone once reached", async () => {
    const user = await resetUser();
    await connectMailbox(user);
    const config = loadConfig(env as never);
    const { global } = await liveBrowserCounts(env as never, user.id);
    await expect(
      createResetTask(env as never, { ...config, MAX_LIVE_BROWSERS: global }, user.id, resetBody()),
    ).rejects.toMatchObject({ status: 429 });
    expect(await resetCount(user.id)).toBe(0);
  });
});
