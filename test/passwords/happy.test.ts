import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { TestUser } from "../support/auth";
import { createEntry, entryBody } from "../support/fixtures";

type Entry = Record<string, unknown> & { id: string };

describe("password entries: happy paths", () => {
  it("creates an entry and returns the spec's create shape", async () => {
    const user = await TestUser.create();
    const res = await user.call("POST", "/api/passwords", {
      body: entryBody({ name: "GitHub", category: "dev" }),
    });
    expect(res.status).toBe(201);
    const json = (await res.json()) as { success: boolean; data: Record<string, unknown> };
    expect(json.success).toBe(true);
    expect(Object.keys(json.data).sort()).toEqual([
      "created_at",
      "encryption_version",
      "id",
      "name",
      "password",
      "user_id",
    ]);
    expect(json.data).toMatchObject({
      user_id: user.id,
      name: "GitHub",
      encryption_version: 3,
      password: null,
    });
    expect(new Date(json.data.created_at as string).toISOString()).toBe(json.data.created_at);
  });

  it("lists entries with every spec field, V3 secrets null, newest first, with pagination", async () => {
    const user = await TestUser.create();
    const first = await createEntry(user, {
      name: "First",
      website: "https://www.First.example.com/login",
      tags: ["a", "b"],
    });
    const second = await createEntry(user, { name: "Second", category: "finance" });
    const res = await user.call("GET", "/api/passwords");
    expect(res.status).toBe(200);
    const json = (await res.json()) as {
      data: Entry[];
      pagination: { page: number; limit: number; total: number };
    };
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

describe("password entries: update, delete, reveal, match", () => {
  it("PATCH changes only the given fields and bumps updated_at", async () => {
    const user = await TestUser.create();
    const { id, body } = await createEntry(user, { name: "Old", tags: ["x"] });
    await new Promise((r) => setTimeout(r, 5));
    const res = await user.call("PATCH", `/api/passwords/${id}`, { body: { name: "New" } });
    expect(res.status).toBe(200);
    const json = (await res.json()) as {
      success: boolean;
      data: { id: string; updated_at: string };
    };
    expect(json).toMatchObject({ success: true, data: { id } });
    const list = (await (await user.call("GET", "/api/passwords")).json()) as { data: Entry[] };
    expect(list.data[0]).toMatchObject({
      name: "New",
      tags: ["x"],
      encrypted_data: body.encrypted_data,
      updated_at: json.data.updated_at,
    });
    expect((list.data[0].updated_at as string) > (list.data[0].created_at as string)).toBe(true);
  });

  it("DELETE soft-deletes: gone from list, reveal and match, row kept with deleted_at", async () => {
    const user = await TestUser.create();
    const { id } = await createEntry(user, { website: "gone.example" });
    const res = await user.call("DELETE", `/api/passwords/${id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true });
    const list = (await (await user.call("GET", "/api/passwords")).json()) as {
      data: Entry[];
      pagination: { total: number };
    };
    expect(list.pagination.total).toBe(0);
    expect((await user.call("POST", `/api/passwords/${id}/reveal`)).status).toBe(404);
    const match = (await (
      await user.call("GET", "/api/passwords/match?url=https://gone.example/")
    ).json()) as { matches: unknown[] };
    expect(match.matches).toEqual([]);
    const row = await env.DB.prepare(
      "SELECT deleted_at FROM passwords WHERE id = ? AND user_id = ?",
    )
      .bind(id, user.id)
      .first<{ deleted_at: string }>();
    expect(row?.deleted_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect((await user.call("DELETE", `/api/passwords/${id}`)).status).toBe(404);
  });

  it("reveal returns the envelope and records an audit event with IP, device and time", async () => {
    const user = await TestUser.create();
    const { id, body } = await createEntry(user);
    const res = await user.call("POST", `/api/passwords/${id}/reveal`, {
      headers: {
        "cf-connecting-ip": "203.0.113.9",
        "x-device-fingerprint": "f".repeat(64),
        "user-agent": "VaultTest/1.0",
      },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      envelope: {
        wrappedItemKey: body.wrapped_item_key,
        encryptedData: body.encrypted_data,
        version: 3,
      },
    });
    const audit = await env.DB.prepare(
      "SELECT * FROM audit_events WHERE user_id = ? AND action = 'password.reveal'",
    )
      .bind(user.id)
      .all<Record<string, string>>();
    expect(audit.results).toHaveLength(1);
    expect(audit.results[0]).toMatchObject({
      target_id: id,
      ip: "203.0.113.9",
      device: "f".repeat(64),
      user_agent: "VaultTest/1.0",
    });
    expect(Date.now() - Date.parse(audit.results[0].created_at as string)).toBeLessThan(60_000);
  });

  it("match finds entries by hostname, parent domains included, and nothing else", async () => {
    const user = await TestUser.create();
    const root = await createEntry(user, { name: "Root", website: "example.com" });
    const sub = await createEntry(user, {
      name: "Sub",
      website: undefined,
      url: "https://accounts.example.com/login",
    });
    await createEntry(user, { name: "Lookalike", website: "notexample.com" });
    await createEntry(user, { name: "Other", website: "other.test" });
    const q = async (url: string) => {
      const res = await user.call("GET", `/api/passwords/match?url=${encodeURIComponent(url)}`);
      expect(res.status).toBe(200);
      return ((await res.json()) as { matches: { id: string }[] }).matches.map((m) => m.id).sort();
    };
    expect(await q("https://WWW.Example.com:443/path?q=1")).toEqual([root.id]);
    expect(await q("https://accounts.example.com/signin")).toEqual([root.id, sub.id].sort());
    expect(await q("https://deep.accounts.example.com/")).toEqual([root.id, sub.id].sort());
    expect(await q("example.org")).toEqual([]);
    const full = (await (
      await user.call("GET", "/api/passwords/match?url=https://example.com")
    ).json()) as { matches: Record<string, unknown>[] };
    expect(Object.keys(full.matches[0]).sort()).toEqual([
      "encrypted_data",
      "id",
      "name",
      "url",
      "username_hash",
      "wrapped_item_key",
    ]);
    expect(full.matches[0]).toMatchObject({
      name: "Root",
      url: "example.com",
      encrypted_data: root.body.encrypted_data,
    });
  });

  it("match follows a website change", async () => {
    const user = await TestUser.create();
    const { id } = await createEntry(user, { website: "before.test" });
    await user.call("PATCH", `/api/passwords/${id}`, { body: { website: "after.test" } });
    const before = (await (
      await user.call("GET", "/api/passwords/match?url=before.test")
    ).json()) as { matches: unknown[] };
    const after = (await (
      await user.call("GET", "/api/passwords/match?url=after.test")
    ).json()) as { matches: { id: string }[] };
    expect(before.matches).toEqual([]);
    expect(after.matches.map((m) => m.id)).toEqual([id]);
  });

  it("pages through the list with page and limit", async () => {
    const user = await TestUser.create();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createEntry(user, { name: `E${i}` })).id);
    const page = async (p: number) =>
      (await (await user.call("GET", `/api/passwords?page=${p}&limit=2`)).json()) as {
        data: Entry[];
        pagination: Record<string, number>;
      };
    const p1 = await page(1);
    const p3 = await page(3);
    expect(p1.pagination).toEqual({ page: 1, limit: 2, total: 5 });
    expect(p1.data.map((e) => e.id)).toEqual([ids[4], ids[3]]);
    expect(p3.data.map((e) => e.id)).toEqual([ids[0]]);
    expect((await page(4)).data).toEqual([]);
  });

  it("a placeholder entry shows its plaintext username until PATCHed to V3", async () => {
    const user = await TestUser.create();
    const now = new Date().toISOString();
    await env.DB.prepare(
      "INSERT INTO passwords (id, user_id, name, website, url, username, encryption_version, created_at, updated_at) VALUES (?, ?, 'Svc', 'svc.test', 'https://svc.test', 'me@example.test', -1, ?, ?)",
    )
      .bind("ph-" + user.id, user.id, now, now)
      .run();
    const list = (await (await user.call("GET", "/api/passwords")).json()) as { data: Entry[] };
    expect(list.data[0]).toMatchObject({ encryption_version: -1, username: "me@example.test" });
    expect((await user.call("POST", `/api/passwords/ph-${user.id}/reveal`)).status).toBe(409);
    const incomplete = await user.call("PATCH", `/api/passwords/ph-${user.id}`, {
      body: { encryption_version: 3 },
    });
    expect(incomplete.status).toBe(400);
    const body = entryBody();
    const res = await user.call("PATCH", `/api/passwords/ph-${user.id}`, {
      body: {
        encryption_version: 3,
        wrapped_item_key: body.wrapped_item_key,
        encrypted_data: body.encrypted_data,
      },
    });
    expect(res.status).toBe(200);
    const after = (await (await user.call("GET", "/api/passwords")).json()) as { data: Entry[] };
    expect(after.data[0]).toMatchObject({ encryption_version: 3, username: null });
    const row = await env.DB.prepare("SELECT username FROM passwords WHERE id = ?")
      .bind(`ph-${user.id}`)
      .first();
    expect(row).toEqual({ username: null });
  });
});
