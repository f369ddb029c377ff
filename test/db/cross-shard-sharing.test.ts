import { describe, expect, it } from "vitest";
import { createEntry } from "../support/fixtures";
import {
  first,
  holders,
  inDirectory,
  last,
  onlyOn,
  shards,
  userOn,
  valueOn,
} from "../support/shard-placement";
import { createShare, invite, listShares } from "../support/sharing";

/**
 * Entry shares across shards (docs/decisions/scale.md, "Scale: shards, a directory, many databases"): the share and the sharing keys in the directory, the
 * entry on its owner's shard, a notification on its reader's. Under VAULT_SHARDS=3 the owner and
 * the recipient are on different shards; with one shard these are ordinary journeys.
 */
const publicJwk = async () => {
  const pair = (await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, [
    "deriveBits",
  ])) as CryptoKeyPair;
  const jwk = (await crypto.subtle.exportKey("jwk", pair.publicKey)) as JsonWebKey;
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y };
};

const shareCountOn = async (shard: string, entryId: string) =>
  (
    await valueOn<{ n: number }>(
      shard,
      "SELECT share_count AS n FROM passwords WHERE id = ?",
      entryId,
    )
  )?.n;

describe("entry shares across shards", () => {
  it("an owner and a write recipient on different shards go through a share's whole life", async () => {
    const owner = await userOn(first);
    const recipient = await userOn(last);
    const publicKey = await publicJwk();
    expect(
      (await recipient.call("PUT", "/api/sharing/public-key", { body: { publicKey } })).status,
    ).toBe(200);
    expect(await holders("sharing_keys", "user_id = ?", recipient.id)).toEqual(inDirectory());
    const found = await owner.call(
      "GET",
      `/api/sharing/public-key?email=${encodeURIComponent(recipient.email)}`,
    );
    expect(((await found.json()) as { publicKey: unknown }).publicKey).toEqual(publicKey);

    const entry = await createEntry(owner, { name: "Bank", website: "bank.test" });
    const wrapped = invite();
    const share = await createShare(owner, {
      accountId: entry.id,
      recipientEmail: recipient.email,
      permission: "write",
      wrapped_vault_key_invite: wrapped,
    });
    expect(await holders("shares", "id = ?", share.id)).toEqual(inDirectory());
    expect(await shareCountOn(first, entry.id)).toBe(1);

    expect((await listShares(recipient, "received")).shares.map((s) => s.id)).toEqual([share.id]);
    expect(
      (await recipient.call("PATCH", `/api/sharing/${share.id}`, { body: { status: "active" } }))
        .status,
    ).toBe(200);
    const received = (await listShares(recipient, "received")).shares[0]!;
    expect(received.account).toMatchObject({
      id: entry.id,
      name: "Bank",
      encrypted_data: entry.body.encrypted_data,
      wrapped_item_key: wrapped,
    });

    expect(
      (
        await recipient.call("POST", `/api/sharing/${share.id}/view`, {
          body: { action: "password_viewed" },
        })
      ).status,
    ).toBe(201);
    expect(
      await holders("notifications", "user_id = ? AND type = 'share_viewed'", owner.id),
    ).toEqual(onlyOn(first));
    expect(await holders("share_view_logs", "share_id = ?", share.id)).toEqual(inDirectory());
    const inbox = (await (await owner.call("GET", "/api/notifications")).json()) as {
      notifications: { type: string }[];
    };
    expect(inbox.notifications.map((n) => n.type)).toContain("share_viewed");
    const views = (await (await owner.call("GET", `/api/sharing/${share.id}/views`)).json()) as {
      views: { action: string }[];
    };
    expect(views.views.map((v) => v.action)).toEqual(["password_viewed"]);

    const edited = invite();
    expect(
      (
        await recipient.call("PATCH", `/api/sharing/${share.id}/account`, {
          body: { encrypted_data: edited },
        })
      ).status,
    ).toBe(200);
    const mine = (await (await owner.call("GET", "/api/passwords")).json()) as {
      data: { id: string; encrypted_data: string }[];
    };
    expect(mine.data.find((p) => p.id === entry.id)?.encrypted_data).toBe(edited);
    expect(await holders("passwords", "id = ? AND encrypted_data = ?", entry.id, edited)).toEqual(
      onlyOn(first),
    );

    expect(
      (await owner.call("PATCH", `/api/sharing/${share.id}`, { body: { status: "revoked" } }))
        .status,
    ).toBe(200);
    expect(await shareCountOn(first, entry.id)).toBe(0);
    expect((await listShares(recipient, "received")).shares).toEqual([]);
    expect(
      (
        await recipient.call("PATCH", `/api/sharing/${share.id}/account`, {
          body: { encrypted_data: invite() },
        })
      ).status,
    ).toBe(404);
    expect((await owner.call("DELETE", `/api/sharing/${share.id}`)).status).toBe(200);
    expect(await holders("shares", "id = ?", share.id)).toEqual([]);
    expect(await holders("share_view_logs", "share_id = ?", share.id)).toEqual([]);
  });

  it("a recipient's list gathers the shares of owners on every shard and pages past deleted entries", async () => {
    const recipient = await userOn(last);
    const kept: { id: string; created_at: string }[] = [];
    for (const shard of shards) {
      const owner = await userOn(shard);
      for (const keep of [true, false, false, true]) {
        const entry = await createEntry(owner, { name: `on ${shard}` });
        const share = await createShare(owner, {
          accountId: entry.id,
          recipientEmail: recipient.email,
        });
        if (keep) kept.push(share);
        else expect((await owner.call("DELETE", `/api/passwords/${entry.id}`)).status).toBe(200);
      }
    }
    // Newest first, ties by id: the list's own order.
    const expected = kept
      .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id))
      .map((s) => s.id);
    const seen: { id: string; name: string }[] = [];
    let pages = 0;
    for (let cursor: string | null = null; ; pages++) {
      const res = await recipient.call(
        "GET",
        `/api/sharing?type=received&limit=2${cursor ? `&cursor=${cursor}` : ""}`,
      );
      const body = (await res.json()) as {
        shares: { id: string; account: { name: string } }[];
        next_cursor: string | null;
      };
      if (body.next_cursor) expect(body.shares).toHaveLength(2);
      seen.push(...body.shares.map((s) => ({ id: s.id, name: s.account.name })));
      cursor = body.next_cursor;
      if (!cursor) break;
    }
    expect(seen.map((s) => s.id)).toEqual(expected);
    expect(pages).toBe(shards.length - 1);
    expect(new Set(seen.map((s) => s.name))).toEqual(new Set(shards.map((s) => `on ${s}`)));
  });
});
