import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { TestUser } from "../support/auth";
import { wrappedKey } from "../support/recovery";

// docs/decisions/hardening.md, "Hardening: limits, abuse and failure" item 10: limits checked in the writing statement itself, so parallel requests at the
// limit cannot all pass a read made before any of them wrote.

const now = () => new Date().toISOString();

async function seedEntries(userId: string, n: number) {
  const stmts = Array.from({ length: n }, (_, i) =>
    env.DB.prepare(
      "INSERT INTO passwords (id, user_id, name, encryption_version, created_at, updated_at) VALUES (?, ?, ?, 3, ?, ?)",
    ).bind(crypto.randomUUID(), userId, `e${i}`, now(), now()),
  );
  await env.DB.batch(stmts);
}

async function seedDiscovered(userId: string, domains: string[]) {
  await env.DB.batch(
    domains.map((domain) =>
      env.DB.prepare(
        "INSERT INTO discovered_accounts (id, user_id, domain, service_name, service_icon, service_color, created_at, updated_at) VALUES (?, ?, ?, ?, '', '', ?, ?)",
      ).bind(crypto.randomUUID(), userId, domain, domain, now(), now()),
    ),
  );
}

describe("guarded limits under parallel requests", () => {
  it("add-to-vault: of 8 parallel single-domain requests with room for 3, exactly 3 succeed", async () => {
    const user = await TestUser.create();
    const limit = Number(env.MAX_PASSWORDS_PER_USER);
    await seedEntries(user.id, limit - 3);
    const domains = Array.from({ length: 8 }, (_, i) => `site${i}.example.test`);
    await seedDiscovered(user.id, domains);
    await user.csrf();
    const results = await Promise.all(
      domains.map((d) =>
        user.call("POST", "/api/accounts/add-to-vault", { body: { domains: [d] } }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 503, 503, 503, 503, 503]);
    const live = await env.DB.prepare(
      "SELECT count(*) AS n FROM passwords WHERE user_id = ? AND deleted_at IS NULL",
    )
      .bind(user.id)
      .first<{ n: number }>();
    expect(live?.n).toBe(limit);
    const linked = await env.DB.prepare(
      "SELECT count(*) AS n FROM discovered_accounts WHERE user_id = ? AND in_vault = 1",
    )
      .bind(user.id)
      .first<{ n: number }>();
    expect(linked?.n).toBe(3);
  });

  it("add-to-vault: a request that does not fit whole writes nothing", async () => {
    const user = await TestUser.create();
    const limit = Number(env.MAX_PASSWORDS_PER_USER);
    await seedEntries(user.id, limit - 1);
    await seedDiscovered(user.id, ["a.example.test", "b.example.test"]);
    expect(
      (
        await user.call("POST", "/api/accounts/add-to-vault", {
          body: { domains: ["a.example.test", "b.example.test"] },
        })
      ).status,
    ).toBe(503);
    const n = await env.DB.prepare(
      "SELECT count(*) AS n FROM passwords WHERE user_id = ? AND encryption_version = -1",
    )
      .bind(user.id)
      .first<{ n: number }>();
    expect(n?.n).toBe(0);
    const linked = await env.DB.prepare(
      "SELECT count(*) AS n FROM discovered_accounts WHERE user_id = ? AND in_vault = 1",
    )
      .bind(user.id)
      .first<{ n: number }>();
    expect(linked?.n).toBe(0);
  });

  it("dead man's switch: of 14 parallel recipient adds, exactly 10 succeed and only they are logged", async () => {
    const owner = await TestUser.create();
    const made = await owner.call("POST", "/api/dead-man-switch", {
      body: { inactivity_days: 30, notify_at_days: [7], notify_via: ["email"] },
    });
    expect(made.status).toBe(201);
    await owner.csrf();
    const results = await Promise.all(
      Array.from({ length: 14 }, (_, i) =>
        owner.call("POST", "/api/dead-man-switch/recipients", {
          body: {
            recipient_email: `heir${i}@example.test`,
            recipient_name: "Heir",
            wrapped_recovery_key: wrappedKey(),
          },
        }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([
      ...Array(10).fill(201),
      ...Array(4).fill(422),
    ]);
    const rows = await env.DB.prepare(
      "SELECT count(*) AS n FROM dead_man_switch_recipients WHERE owner_id = ?",
    )
      .bind(owner.id)
      .first<{ n: number }>();
    expect(rows?.n).toBe(10);
    const logs = await env.DB.prepare(
      "SELECT count(*) AS n FROM dead_man_switch_logs WHERE owner_id = ? AND action = 'recipient_added'",
    )
      .bind(owner.id)
      .first<{ n: number }>();
    expect(logs?.n).toBe(10);
  });
});
