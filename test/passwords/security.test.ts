import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import { createEntry } from "../support/fixtures";

describe("password entries: another user's records", () => {
  it("are 404 for PATCH, DELETE and reveal, and stay unchanged", async () => {
    const owner = await TestUser.create();
    const intruder = await TestUser.create();
    const { id, body } = await createEntry(owner, { name: "Mine", website: "mine.test" });
    await expectErrorBody(
      await intruder.call("PATCH", `/api/passwords/${id}`, { body: { name: "Stolen" } }),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(await intruder.call("DELETE", `/api/passwords/${id}`), 404, "NOT_FOUND");
    await expectErrorBody(
      await intruder.call("POST", `/api/passwords/${id}/reveal`),
      404,
      "NOT_FOUND",
    );
    const row = await env.DB.prepare(
      "SELECT name, deleted_at, encrypted_data FROM passwords WHERE id = ?",
    )
      .bind(id)
      .first();
    expect(row).toEqual({ name: "Mine", deleted_at: null, encrypted_data: body.encrypted_data });
    const audits = await env.DB.prepare(
      "SELECT count(*) AS n FROM audit_events WHERE target_id = ?",
    )
      .bind(id)
      .first<{ n: number }>();
    expect(audits?.n).toBe(0);
  });

  it("never appear in another user's list or match", async () => {
    const owner = await TestUser.create();
    const other = await TestUser.create();
    await createEntry(owner, { website: "shared-host.test" });
    const list = (await (await other.call("GET", "/api/passwords")).json()) as {
      data: unknown[];
      pagination: { total: number };
    };
    expect(list.data).toEqual([]);
    expect(list.pagination.total).toBe(0);
    const match = (await (
      await other.call("GET", "/api/passwords/match?url=shared-host.test")
    ).json()) as { matches: unknown[] };
    expect(match.matches).toEqual([]);
  });

  it("a user id in the body cannot create an entry for someone else", async () => {
    const user = await TestUser.create();
    const victim = await TestUser.create();
    const res = await user.call("POST", "/api/passwords", {
      body: { ...(await import("../support/fixtures")).entryBody(), user_id: victim.id },
    });
    expect(res.status).toBe(201);
    const json = (await res.json()) as { data: { user_id: string } };
    expect(json.data.user_id).toBe(user.id);
    const n = await env.DB.prepare("SELECT count(*) AS n FROM passwords WHERE user_id = ?")
      .bind(victim.id)
      .first<{ n: number }>();
    expect(n?.n).toBe(0);
  });

  it("plaintext secrets sent to create are never stored", async () => {
    const user = await TestUser.create();
    const { entryBody } = await import("../support/fixtures");
    const res = await user.call("POST", "/api/passwords", {
      body: { ...entryBody(), password: "hunter2", username: "alice", notes: "secret" },
    });
    expect(res.status).toBe(201);
    const row = await env.DB.prepare("SELECT * FROM passwords WHERE user_id = ?")
      .bind(user.id)
      .first();
    expect(JSON.stringify(row)).not.toContain("hunter2");
    expect(JSON.stringify(row)).not.toContain("secret");
    expect(row?.username).toBeNull();
  });
});
