import { describe, expect, it } from "vitest";
import { accepted } from "../support/emergency";
import { createEntry } from "../support/fixtures";
import { emergencyTimer, fireAlarm, iso, setContact } from "../support/recovery";
import { first, holders, inDirectory, last, onlyOn, userOn } from "../support/shard-placement";

/**
 * Emergency contacts across shards (docs/decisions/scale.md, "Scale: shards, a directory, many databases"): the record in the directory; each side's audit
 * events and notifications on that side's shard; the owner's entries read from the owner's shard.
 * Under VAULT_SHARDS=3 the owner and the contact are on different shards.
 */
const notified = (userId: string, type: string) =>
  holders("notifications", "user_id = ? AND type = ?", userId, type);
const audited = (userId: string, action: string) =>
  holders("audit_events", "user_id = ? AND action = ?", userId, action);

describe("emergency contacts across shards", () => {
  it("an owner and a contact on different shards: invite, accept, request, approval, vault read", async () => {
    const owner = await userOn(first);
    const friend = await userOn(last);
    const entry = await createEntry(owner, { name: "Bank" });
    const { contact } = await accepted(owner, friend);
    expect(await holders("emergency_contacts", "id = ?", contact.id)).toEqual(inDirectory());
    expect(await notified(owner.id, "emergency_contact_accepted")).toEqual(onlyOn(first));
    expect(await audited(owner.id, "emergency_contact.add")).toEqual(onlyOn(first));
    expect(await audited(friend.id, "emergency_contact.accept")).toEqual(onlyOn(last));
    const listed = (await (await friend.call("GET", "/api/vault/emergency")).json()) as {
      as_contact: { id: string; status: string }[];
    };
    expect(listed.as_contact).toMatchObject([{ id: contact.id, status: "active" }]);

    expect(
      (
        await friend.call("POST", "/api/vault/emergency/request", {
          body: { contact_id: contact.id },
        })
      ).status,
    ).toBe(200);
    expect(await notified(owner.id, "emergency_access_requested")).toEqual(onlyOn(first));
    expect(
      (
        await owner.call("POST", "/api/vault/emergency/respond", {
          body: { contact_id: contact.id, action: "approve" },
        })
      ).status,
    ).toBe(200);
    expect(await notified(friend.id, "emergency_access_granted")).toEqual(onlyOn(last));
    expect(await audited(owner.id, "emergency_access.approve")).toEqual(onlyOn(first));

    const res = await friend.call("GET", `/api/vault/emergency/${contact.id}/vault`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      owner_id: string;
      entries: { id: string; encrypted_data: string }[];
    };
    expect(body.entries.map((e) => [e.id, e.encrypted_data])).toEqual([
      [entry.id, entry.body.encrypted_data],
    ]);
    expect(await notified(owner.id, "emergency_vault_read")).toEqual(onlyOn(first));
    expect(await audited(friend.id, "emergency_access.read_vault")).toEqual(onlyOn(last));
  });

  it("the timer grants on its own and tells each side on its own shard", async () => {
    const owner = await userOn(last);
    const friend = await userOn(first);
    const { contact } = await accepted(owner, friend);
    expect(
      (
        await friend.call("POST", "/api/vault/emergency/request", {
          body: { contact_id: contact.id },
        })
      ).status,
    ).toBe(200);
    await setContact(contact.id, { grantAt: iso(Date.now() - 1000) });
    expect(await fireAlarm(emergencyTimer(contact.id))).toBe(true);
    expect(
      await holders("emergency_contacts", "id = ? AND status = 'access_granted'", contact.id),
    ).toEqual(inDirectory());
    expect(await notified(owner.id, "emergency_access_granted")).toEqual(onlyOn(last));
    expect(await notified(friend.id, "emergency_access_granted")).toEqual(onlyOn(first));
    expect(
      (await friend.call("GET", `/api/vault/emergency/access?contact_id=${contact.id}`)).status,
    ).toBe(200);
  });
});
