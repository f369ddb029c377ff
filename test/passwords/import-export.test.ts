import {
  createExecutionContext,
  createScheduledController,
  env,
  waitOnExecutionContext,
} from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { expectErrorBody, TestUser } from "../support/auth";
import { createEntry } from "../support/fixtures";
import { countRows, importEntry, pull, registerDevice, row } from "../sync/helpers";

type ImportResult = {
  success: boolean;
  imported: number;
  encryption_version: number;
  errors: string[];
};
type ExportDoc = {
  entries: Record<string, unknown>[];
  count: number;
  provider: string;
  skipped_placeholders: number;
};

const entries = (n: number, over: Record<string, unknown> = {}) =>
  Array.from({ length: n }, (_, i) => importEntry({ name: `Item ${i}`, ...over }));

describe("import", () => {
  it("imports pre-encrypted entries; they are listed, synced and audited", async () => {
    const user = await TestUser.create();
    const cursor = (await pull(user)).serverTimestamp;
    const body = {
      provider: "source_mgr_1",
      entries: [
        importEntry({ name: "Bank", website: "bank.example", tags: ["money"] }),
        importEntry(),
      ],
    };
    const res = await user.call("POST", "/api/passwords/import", { body });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      success: true,
      imported: 2,
      encryption_version: 3,
      errors: [],
    });
    const list = (await (await user.call("GET", "/api/passwords")).json()) as {
      data: Record<string, unknown>[];
    };
    expect(list.data).toHaveLength(2);
    const bank = list.data.find((e) => e.name === "Bank")!;
    expect(bank).toMatchObject({
      website: "bank.example",
      tags: ["money"],
      encryption_version: 3,
      encrypted_data: body.entries[0].encrypted_data,
      username_hash: body.entries[0].username_hash,
    });
    expect(list.data.find((e) => e !== bank)!.name).toBe("Imported entry");
    expect((await pull(user, cursor)).changes).toHaveLength(2);
    const audit = await env.DB.prepare(
      "SELECT details FROM audit_events WHERE user_id = ? AND action = 'password.import'",
    )
      .bind(user.id)
      .first<{ details: string }>();
    expect(JSON.parse(audit!.details)).toMatchObject({ provider: "source_mgr_1", imported: 2 });
  });

  it("works in batches of 50: a batch that cannot go in adds an error and the rest still goes in", async () => {
    // The test vault holds at most 25 entries (vitest.config.mts): 50 never fit, the last 10 do.
    const user = await TestUser.create();
    const res = await user.call("POST", "/api/passwords/import", {
      body: { provider: "generic", entries: entries(60) },
    });
    const json = (await res.json()) as ImportResult;
    expect(res.status).toBe(200);
    expect(json.success).toBe(false);
    expect(json.imported).toBe(10);
    expect(json.errors).toHaveLength(1);
    expect(json.errors[0]).toMatch(/^Batch 1 \(entries 1 to 50\)/);
    await expect(countRows(user.id)).resolves.toBe(10);
    const names = await env.DB.prepare("SELECT name FROM passwords WHERE user_id = ? ORDER BY name")
      .bind(user.id)
      .all<{ name: string }>();
    expect(names.results.map((r) => r.name)).toEqual(
      Array.from({ length: 10 }, (_, i) => `Item ${50 + i}`).sort(),
    );
  });

  it("keeps an id the client chose (its envelope is bound to it); an id in use is skipped, never overwritten", async () => {
    const user = await TestUser.create();
    const other = await TestUser.create();
    const theirs = await createEntry(other);
    const [mine, again] = [crypto.randomUUID(), crypto.randomUUID()];
    const first = await user.call("POST", "/api/passwords/import", {
      body: { provider: "generic", entries: [importEntry({ id: mine, name: "Mine" })] },
    });
    expect(await first.json()).toEqual({
      success: true,
      imported: 1,
      encryption_version: 3,
      errors: [],
    });
    expect((await row(mine))?.name).toBe("Mine");

    const body = {
      provider: "generic",
      entries: [
        importEntry({ id: mine, name: "Overwrite?" }),
        importEntry({ id: theirs.id, name: "Steal?" }),
        importEntry({ id: again, name: "New" }),
      ],
    };
    const second = (await (
      await user.call("POST", "/api/passwords/import", { body })
    ).json()) as ImportResult;
    expect(second).toMatchObject({
      success: false,
      imported: 1,
      errors: [
        "Entries 1, 2 were not imported: their ids are already in use (an entry's envelope is bound to its id: seal them again under a new id)",
      ],
    });
    expect((await row(mine))?.name).toBe("Mine");
    expect((await row(theirs.id))?.user_id).toBe(other.id);
    expect((await row(again))?.name).toBe("New");
    await expect(countRows(user.id)).resolves.toBe(2);
    await expect(countRows(other.id)).resolves.toBe(1);
  });

  it("rejects an id that is not a UUID with 400 and stores nothing", async () => {
    const user = await TestUser.create();
    await expectErrorBody(
      await user.call("POST", "/api/passwords/import", {
        body: { provider: "generic", entries: [importEntry({ id: "../other" })] },
      }),
      400,
      "VALIDATION_ERROR",
    );
    await expect(countRows(user.id)).resolves.toBe(0);
  });

  it("replays an Idempotency-Key with the first result and imports nothing twice", async () => {
    const user = await TestUser.create();
    const body = { provider: "source_browser", entries: entries(3) };
    const headers = { "idempotency-key": `imp-${crypto.randomUUID()}` };
    const first = await user.call("POST", "/api/passwords/import", { body, headers });
    const again = await user.call("POST", "/api/passwords/import", { body, headers });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.json()).toEqual(await first.json());
    await expect(countRows(user.id)).resolves.toBe(3);
  });

  it("rejects bad input with 400 and stores nothing", async () => {
    const user = await TestUser.create();
    const bad: unknown[] = [
      { entries: entries(1) },
      { provider: "source_mgr_9", entries: entries(1) },
      { provider: "generic", entries: [] },
      { provider: "generic", entries: [importEntry({ encryption_version: 2 })] },
      { provider: "generic", entries: [importEntry(), importEntry({ encrypted_data: undefined })] },
      { provider: "generic", entries: [importEntry({ domain_hash: "not-hex" })] },
      {
        provider: "generic",
        entries: Array.from({ length: 5001 }, () => ({
          wrapped_item_key: "a",
          encrypted_data: "b",
        })),
      },
    ];
    for (const body of bad)
      await expectErrorBody(
        await user.call("POST", "/api/passwords/import", { body }),
        400,
        "VALIDATION_ERROR",
      );
    await expect(countRows(user.id, false)).resolves.toBe(0);
  });

  it("needs a recent sign-in (step-up, D3) and answers 413 beyond 12 MB", async () => {
    const stale = await TestUser.create({ authAge: 301 });
    const res = await stale.call("POST", "/api/passwords/import", {
      body: { provider: "generic", entries: entries(1) },
    });
    const body = await expectErrorBody(res, 401, "STEP_UP_REQUIRED");
    expect(body.maxAge).toBe(300);
    expect(res.headers.get("www-authenticate")).toContain(
      'error="insufficient_user_authentication"',
    );
    await expect(countRows(stale.id, false)).resolves.toBe(0);
    const user = await TestUser.create();
    const huge = JSON.stringify({
      provider: "generic",
      entries: [importEntry({ encrypted_data: "A".repeat(12 * 1024 * 1024) })],
    });
    await expectErrorBody(
      await user.call("POST", "/api/passwords/import", {
        rawBody: huge,
        headers: { "content-type": "application/json" },
      }),
      413,
      "PAYLOAD_TOO_LARGE",
    );
  });
});

describe("export", () => {
  it("returns every live V3 entry with its id, audited, in a document the import accepts back unchanged", async () => {
    const user = await TestUser.create();
    const fp = await registerDevice(user.id, "trusted");
    const a = await createEntry(user, { name: "Alpha", website: "alpha.test" });
    await createEntry(user, { name: "Beta" });
    const dead = await createEntry(user, { name: "Dead" });
    await user.call("DELETE", `/api/passwords/${dead.id}`);
    const placeholder = await createEntry(user, { name: "Placeholder" });
    await env.DB.prepare(
      "UPDATE passwords SET encryption_version = -1, username = 'bob' WHERE id = ?",
    )
      .bind(placeholder.id)
      .run();

    const res = await user.call("GET", "/api/passwords/export", {
      headers: { "x-device-fingerprint": fp },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="vault-export-/);
    const doc = (await res.json()) as ExportDoc;
    expect(doc).toMatchObject({ count: 2, provider: "generic", skipped_placeholders: 1 });
    expect(doc.entries.map((e) => e.name).sort()).toEqual(["Alpha", "Beta"]);
    expect(doc.entries.find((e) => e.name === "Alpha")).toMatchObject({
      wrapped_item_key: a.body.wrapped_item_key,
      encrypted_data: a.body.encrypted_data,
      name_hash: a.body.name_hash,
      username_hash: a.body.username_hash,
      domain_hash: a.body.domain_hash,
      search_tokens: a.body.search_tokens,
      website: "alpha.test",
    });
    expect(JSON.stringify(doc)).not.toContain("bob");
    const audit = await env.DB.prepare(
      "SELECT device FROM audit_events WHERE user_id = ? AND action = 'password.export'",
    )
      .bind(user.id)
      .first<{ device: string }>();
    expect(audit?.device).toBe(fp);

    // The document carries each entry's id, to which its envelope is bound: taking it back skips
    // what is still there, and an export without ids (made before they were added) imports anew.
    expect(doc.entries.find((e) => e.name === "Alpha")?.id).toBe(a.id);
    const back = await user.call("POST", "/api/passwords/import", { body: doc });
    expect(await back.json()).toMatchObject({
      success: false,
      imported: 0,
      errors: [
        "Entries 1, 2 were not imported: their ids are already in use (an entry's envelope is bound to its id: seal them again under a new id)",
      ],
    });
    const other = await TestUser.create();
    const withoutIds = { ...doc, entries: doc.entries.map(({ id: _id, ...e }) => e) };
    expect(
      await (await other.call("POST", "/api/passwords/import", { body: withoutIds })).json(),
    ).toMatchObject({ success: true, imported: 2 });
    const again = (await (await other.call("GET", "/api/passwords")).json()) as {
      data: Record<string, unknown>[];
    };
    expect(again.data.find((e) => e.name === "Alpha")).toMatchObject({
      encrypted_data: a.body.encrypted_data,
      website: "alpha.test",
    });
  });

  it("is refused from an unknown device (D11) and needs a recent sign-in from a recognized one (D3)", async () => {
    const user = await TestUser.create();
    await createEntry(user);
    await expectErrorBody(await user.call("GET", "/api/passwords/export"), 403, "FORBIDDEN");
    await expectErrorBody(
      await user.call("GET", "/api/passwords/export", {
        headers: { "x-device-fingerprint": "never-registered" },
      }),
      403,
      "FORBIDDEN",
    );
    const staleUser = await TestUser.create({ authAge: 400 });
    const fp = await registerDevice(staleUser.id, "recognized");
    await expectErrorBody(
      await staleUser.call("GET", "/api/passwords/export", {
        headers: { "x-device-fingerprint": fp },
      }),
      401,
      "STEP_UP_REQUIRED",
    );
    const audits = await env.DB.prepare(
      "SELECT count(*) AS n FROM audit_events WHERE action = 'password.export' AND user_id IN (?, ?)",
    )
      .bind(user.id, staleUser.id)
      .first<{ n: number }>();
    expect(audits?.n).toBe(0);
  });

  it("never includes another user's entries", async () => {
    const owner = await TestUser.create();
    const { body } = await createEntry(owner);
    const user = await TestUser.create();
    const fp = await registerDevice(user.id, "trusted");
    const doc = (await (
      await user.call("GET", "/api/passwords/export", { headers: { "x-device-fingerprint": fp } })
    ).json()) as ExportDoc;
    expect(doc.entries).toEqual([]);
    expect(JSON.stringify(doc)).not.toContain(body.encrypted_data);
  });
});

describe("scheduled tombstone purge", () => {
  it("removes tombstones older than 30 days and keeps newer ones and live entries", async () => {
    const user = await TestUser.create();
    const live = await createEntry(user);
    const old = await createEntry(user);
    const recent = await createEntry(user);
    await user.call("DELETE", `/api/passwords/${old.id}`);
    await user.call("DELETE", `/api/passwords/${recent.id}`);
    const longAgo = Date.now() - 31 * 24 * 3600 * 1000;
    await env.DB.prepare("UPDATE passwords SET change_seq = ?, deleted_at = ? WHERE id = ?")
      .bind(longAgo, new Date(longAgo).toISOString(), old.id)
      .run();

    const ctx = createExecutionContext();
    await worker.scheduled(
      createScheduledController({ scheduledTime: Date.now(), cron: "17 3 * * *" }),
      env,
      ctx,
    );
    await waitOnExecutionContext(ctx);

    expect(await row(old.id)).toBeNull();
    expect((await row(recent.id))?.deleted_at).not.toBeNull();
    expect((await row(live.id))?.deleted_at).toBeNull();
  });
});
