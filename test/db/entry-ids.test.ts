import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { bindingOf } from "../../src/db/shards";
import { createEntry, entryBody } from "../support/fixtures";
import { createShare, invite } from "../support/sharing";
import { create, importEntry, push } from "../sync/helpers";
import {
  directory,
  first,
  holders,
  last,
  onlyOn,
  shards,
  userOn,
  valueOn,
} from "../support/shard-placement";

/**
 * Entry ids stay unique across users however many shards there are (src/db/entry-ids.ts). With
 * one shard the primary key of `passwords` keeps the rule and nothing is claimed; under
 * VAULT_SHARDS=3 the two users sit on different shards, so only the directory's claims can.
 */
const e = env as unknown as Record<string, unknown>;
const several = shards.length > 1;
const claimsOf = async (ownerId: string) =>
  (await bindingOf(e, directory)
    .prepare("SELECT count(*) AS n FROM entry_ids WHERE owner_id = ?")
    .bind(ownerId)
    .first<{ n: number }>())!.n;
type Imported = { success: boolean; imported: number; errors: string[] };
const importIds = async (
  user: Awaited<ReturnType<typeof userOn>>,
  entries: Record<string, unknown>[],
) =>
  (await (
    await user.call("POST", "/api/passwords/import", { body: { provider: "generic", entries } })
  ).json()) as Imported;

describe("entry ids across shards", () => {
  it("an id another user holds is refused by sync and skipped by import, whichever shard holds it", async () => {
    const owner = await userOn(first);
    const intruder = await userOn(last);
    const minted = (await createEntry(owner, { name: "Minted" })).id;
    const pushed = crypto.randomUUID();
    expect((await push(owner, [create(pushed, { name: "Pushed" })])).results[0]?.status).toBe(
      "applied",
    );
    const imported = crypto.randomUUID();
    expect(
      (await importIds(owner, [importEntry({ id: imported, name: "Imported" })])).imported,
    ).toBe(1);

    const res = await push(intruder, [create(minted), create(pushed), create(imported)]);
    expect(res.results.map((r) => [r.status, r.code])).toEqual([
      ["failed", "CONFLICT"],
      ["failed", "CONFLICT"],
      ["failed", "CONFLICT"],
    ]);
    const again = await importIds(intruder, [
      importEntry({ id: minted }),
      importEntry({ id: pushed }),
      importEntry({ id: imported }),
      importEntry(),
    ]);
    expect(again).toMatchObject({
      imported: 1,
      errors: [
        "Entries 1, 2, 3 were not imported: their ids are already in use (an entry's envelope is bound to its id: seal them again under a new id)",
      ],
    });
    for (const id of [minted, pushed, imported]) {
      expect(await holders("passwords", "id = ?", id)).toEqual(onlyOn(first));
      expect(await holders("passwords", "id = ? AND user_id = ?", id, intruder.id)).toEqual([]);
    }
    // One shard claims nothing; several claim each entry once, for its owner, in the directory.
    expect(await claimsOf(owner.id)).toBe(several ? 3 : 0);
    expect(await claimsOf(intruder.id)).toBe(several ? 1 : 0);
    if (several)
      for (const shard of shards)
        expect(
          await valueOn(shard, "SELECT 1 AS x FROM entry_ids WHERE owner_id = ?", owner.id),
        ).toBeNull();
  });

  it("a create refused at the entry limit gives its minted id back; a client's id stays its owner's", async () => {
    const user = await userOn(last);
    const limit = Number(env.MAX_PASSWORDS_PER_USER);
    const fill = await importIds(
      user,
      Array.from({ length: limit }, () => importEntry()),
    );
    expect(fill.imported).toBe(limit);
    expect(await claimsOf(user.id)).toBe(several ? limit : 0);

    expect((await user.call("POST", "/api/passwords", { body: entryBody() })).status).toBe(503);
    const over = await importIds(user, [importEntry(), importEntry()]);
    expect(over).toMatchObject({ success: false, imported: 0 });
    expect(await claimsOf(user.id)).toBe(several ? limit : 0);

    // A refused client id is the client's to retry; nobody else may take it meanwhile.
    const theirs = crypto.randomUUID();
    expect((await push(user, [create(theirs)])).results[0]).toMatchObject({
      status: "failed",
      code: "SERVICE_UNAVAILABLE",
    });
    expect(await claimsOf(user.id)).toBe(several ? limit + 1 : 0);
    const other = await userOn(first);
    expect((await push(other, [create(theirs)])).results[0]).toMatchObject(
      several ? { status: "failed", code: "CONFLICT" } : { status: "applied" },
    );
  });

  it("two owners may share entries that carry the same id (written before ids were claimed) with one address", async () => {
    const email = `both-${crypto.randomUUID().slice(0, 8)}@example.test`;
    const a = await userOn(first);
    const b = await userOn(last);
    const { id } = await createEntry(a, { name: "A's" });
    const body = {
      accountId: id,
      recipientEmail: email,
      wrapped_vault_key_invite: invite(),
      invite_token_salt: "s",
    };
    expect((await createShare(a, body)).owner_id).toBe(a.id);
    // The same owner twice is still refused.
    expect((await a.call("POST", "/api/sharing", { body })).status).toBe(409);
    if (!several) return;
    // b's copy goes straight onto b's shard, as a deployment from before the claims could hold.
    const cols =
      "name, website, url, tags, encryption_version, wrapped_item_key, encrypted_data, domain_hash, name_hash, username_hash, search_tokens, host, created_at, updated_at, change_seq";
    const row = await valueOn<Record<string, unknown>>(
      first,
      `SELECT ${cols} FROM passwords WHERE id = ?`,
      id,
    );
    await bindingOf(e, last)
      .prepare(
        `INSERT INTO passwords (id, user_id, ${cols}) VALUES (?, ?, ${cols
          .split(", ")
          .map(() => "?")
          .join(", ")})`,
      )
      .bind(id, b.id, ...Object.values(row!))
      .run();
    const theirs = await createShare(b, body);
    expect(theirs).toMatchObject({ owner_id: b.id, account_id: id });
    expect(
      await holders(
        "shares",
        "account_id = ? AND recipient_email = ? AND status = 'pending'",
        id,
        email,
      ),
    ).toEqual([directory]);
  });
});
