import { describe, expect, it } from "vitest";
import { TestUser } from "../support/auth";
import { accepted, requested } from "../support/emergency";
import { createEntry } from "../support/fixtures";
import { auditOf, iso, notificationsOf, setContact } from "../support/recovery";

// DECISIONS D15: after a grant, the contact reads the owner's vault (ciphertext) through
// GET /api/vault/emergency/<id>/vault; read-only, audited, the owner told once per window.
const vault = (u: TestUser, id: string) =>
  u.call("GET", `/api/vault/emergency/${encodeURIComponent(id)}/vault`);

async function grantedPair() {
  const owner = await TestUser.create();
  const friend = await TestUser.create();
  const a = await createEntry(owner, { name: "Bank", website: "bank.test" });
  const b = await createEntry(owner, { name: "Mail", website: "mail.test" });
  const gone = await createEntry(owner, { name: "Old", website: "old.test" });
  expect((await owner.call("DELETE", `/api/passwords/${gone.id}`)).status).toBe(200);
  const { contact } = await requested(owner, friend);
  expect(
    (
      await owner.call("POST", "/api/vault/emergency/respond", {
        body: { contact_id: contact.id, action: "approve" },
      })
    ).status,
  ).toBe(200);
  return { owner, friend, contact, live: [a, b] };
}

describe("emergency read access (D15)", () => {
  it("gives the granted contact the owner's live entries as a full sync pull: ciphertext, no tombstones", async () => {
    const { owner, friend, contact, live } = await grantedPair();
    const res = await vault(friend, contact.id);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = (await res.json()) as {
      owner_email: string;
      owner_id: string;
      entries: Record<string, unknown>[];
    };
    expect(body.owner_email).toBe(owner.email.toLowerCase());
    expect(body.owner_id).toBe(owner.id);
    expect(body.entries.map((e) => e.id).sort()).toEqual(live.map((e) => e.id).sort());
    for (const e of body.entries) {
      expect(e._deleted).toBe(false);
      expect(typeof e.wrapped_item_key).toBe("string");
      expect(typeof e.encrypted_data).toBe("string");
      expect(e).not.toHaveProperty("password");
    }
    // The same shape as the owner's own full pull.
    const pull = (await (await owner.call("GET", "/api/passwords/sync")).json()) as {
      changes: { id: string; _deleted: boolean }[];
    };
    const mine = pull.changes.filter((c) => !c._deleted);
    expect(body.entries).toEqual(expect.arrayContaining(mine));
  });

  it("audits every read and notifies the owner once per access window", async () => {
    const { owner, friend, contact } = await grantedPair();
    for (let i = 0; i < 3; i++) expect((await vault(friend, contact.id)).status).toBe(200);
    expect(await auditOf(friend.id, "emergency_access.read_vault")).toHaveLength(3);
    expect(await notificationsOf(owner.id, "emergency_vault_read")).toHaveLength(1);
    // A new window (a later grant) gets its own notice.
    await setContact(contact.id, {
      grantedAt: iso(Date.now() + 1000),
      vaultReadNotifiedAt: iso(Date.now()),
    });
    expect((await vault(friend, contact.id)).status).toBe(200);
    expect(await notificationsOf(owner.id, "emergency_vault_read")).toHaveLength(2);
  });

  it("is 404 for a stranger and for an unknown id, 403 for the owner and before a grant, 410 after the window", async () => {
    const { owner, contact } = await grantedPair();
    expect((await vault(await TestUser.create(), contact.id)).status).toBe(404);
    expect((await vault(owner, crypto.randomUUID())).status).toBe(404);
    expect((await vault(owner, contact.id)).status).toBe(403);

    const other = await TestUser.create();
    const friend2 = await TestUser.create();
    const { contact: waiting } = await accepted(other, friend2);
    const early = await vault(friend2, waiting.id);
    expect(early.status).toBe(403);
    expect(((await early.json()) as { code: string }).code).toBe("FORBIDDEN");
    expect(await auditOf(friend2.id, "emergency_access.read_vault")).toHaveLength(0);

    const { friend, contact: late } = await grantedPair();
    await setContact(late.id, { expiresAt: iso(Date.now() - 1000) });
    const res = await vault(friend, late.id);
    expect(res.status).toBe(410);
    expect(((await res.json()) as { code: string }).code).toBe("GONE");
  });

  it("is 403 once revoked or denied, and nothing in it lets the contact write the owner's entries", async () => {
    const { owner, friend, contact, live } = await grantedPair();
    // No write route accepts a contact for the owner's data.
    expect(
      (await friend.call("PATCH", `/api/passwords/${live[0]!.id}`, { body: { name: "taken" } }))
        .status,
    ).toBe(404);
    expect((await friend.call("DELETE", `/api/passwords/${live[0]!.id}`)).status).toBe(404);
    const push = await friend.call("POST", "/api/passwords/sync", {
      body: {
        mutations: [
          { action: "delete", id: live[0]!.id, clientUpdatedAt: new Date().toISOString() },
        ],
      },
    });
    const results = ((await push.json()) as { results: { status: string }[] }).results;
    expect(results[0]!.status).toBe("failed");
    const still = (await (await owner.call("GET", "/api/passwords/sync")).json()) as {
      changes: { id: string; _deleted: boolean; name: string }[];
    };
    expect(still.changes.find((c) => c.id === live[0]!.id)).toMatchObject({
      _deleted: false,
      name: "Bank",
    });

    expect((await owner.call("DELETE", `/api/vault/emergency/${contact.id}`)).status).toBe(200);
    expect((await vault(friend, contact.id)).status).toBe(403);
  });
});
