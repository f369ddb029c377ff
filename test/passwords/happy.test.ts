import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { TestUser } from "../support/auth";
import { createEntry, entryBody } from "../support/fixtures";

type Entry = Record<string, unknown> & { id: string };

describe("password entries: happy paths", () => {
  it("creates an entry and returns the spec's create shape", async () => {
    const user = await TestUser.create();
    const res = await user.call("POST", "/api/passwords", { body: entryBody({ name: "GitHub", category: "dev" }) });
    expect(res.status).toBe(201);
    const json = (await res.json()) as { success: boolean; data: Record<string, unknown> };
    expect(json.success).toBe(true);
    expect(Object.keys(json.data).sort()).toEqual(["created_at", "encryption_version", "id", "name", "password", "user_id"]);
    expect(json.data).toMatchObject({ user_id: user.id, name: "GitHub", encryption_version: 3, password: null });
    expect(new Date(json.data.created_at as string).toISOString()).toBe(json.data.created_at);
  });

  it("lists entries with every spec field, V3 secrets null, newest first, with pagination", async () => {
    const user = await TestUser.create();
    const first = await createEntry(user, { name: "First", website: "https://www.First.example.com/login", tags: ["a", "b"] });
    const second = await createEntry(user, { name: "Second", category: "finance" });
    const res = await user.call("GET", "/api/passwords");
    expect(res.status).toBe(200);
    const json = (await res.json()) as { data: Entry[]; pagination: { page: number; limit: number; total: number } };
    expect(json.pagination).toEqual({ page: 1, limit: 1000, total: 2 });
    expect(json.data.map((e) => e.id)).toEqual([second.id, first.id]);
    const e = json.data[1];
    for (const f of ["username", "password", "notes", "category"]) expect(e[f]).toBeNull();
    expect(json.data[0].category).toBeNull();
    expect(e).toMatchObject({
      user_id: user.id,
      name: "First",
      website: "https://www.First.example.com/login",
      tags: ["a", "b"],
      encryption_version: 3,
      wrapped_item_key: first.body.wrapped_item_key,
      encrypted_data: first.body.encrypted_data,
      name_hash: first.body.name_hash,
      username_hash: first.body.username_hash,
      domain_hash: first.body.domain_hash,
      search_tokens: first.body.search_tokens,
      share_count: 0,
      has_totp: false,
      has_passkey: false,
      passkey_label: null,
      strength: "strong",
      deleted_at: null,
    });
    expect(typeof e.created_at).toBe("string");
    expect(typeof e.updated_at).toBe("string");
  });
});
