import { describe, expect, it } from "vitest";
import { alarmAt, dmsTimer, fireAlarm, rewindSwitch, wrappedKey } from "../support/recovery";
import {
  directory,
  first,
  holders,
  inDirectory,
  last,
  onlyOn,
  shards,
  userOn,
  valueOn,
} from "../support/shard-placement";

/**
 * The dead man's switch across shards (docs/decisions/scale.md, "Scale: shards, a directory, many databases"): the switch, its recipients and its log in the
 * directory; the owner's notifications and each caller's audit events on that user's shard. Under
 * VAULT_SHARDS=3 the owner and the recipient are on different shards.
 */
describe("dead man's switch across shards", () => {
  it("an owner and a recipient on different shards: the switch triggers, the recipient claims the key", async () => {
    const owner = await userOn(first);
    const heir = await userOn(last);
    const made = await owner.call("POST", "/api/dead-man-switch", {
      body: {
        inactivity_days: 30,
        notify_at_days: [7],
        notify_via: ["push"],
        secret_phrase: "open sesame",
      },
    });
    expect(made.status).toBe(201);
    const key = wrappedKey();
    const added = await owner.call("POST", "/api/dead-man-switch/recipients", {
      body: { recipient_email: heir.email, wrapped_recovery_key: key },
    });
    expect(added.status).toBe(201);
    const rec = ((await added.json()) as { recipient: { id: string } }).recipient;
    expect(await holders("dead_man_switches", "user_id = ?", owner.id)).toEqual(inDirectory());
    expect(await holders("dead_man_switch_recipients", "id = ?", rec.id)).toEqual(inDirectory());
    expect(
      await holders(
        "audit_events",
        "user_id = ? AND action = 'dead_man_switch.recipient_add'",
        owner.id,
      ),
    ).toEqual(onlyOn(first));

    await rewindSwitch(owner.id, 31);
    await fireAlarm(dmsTimer(owner.id));
    expect(
      await holders(
        "notifications",
        "user_id = ? AND type = 'dead_man_switch_triggered'",
        owner.id,
      ),
    ).toEqual(onlyOn(first));

    const list = (await (await heir.call("GET", "/api/dead-man-switch/transfers")).json()) as {
      transfers: { id: string; status: string; requires_secret_phrase: boolean }[];
    };
    expect(list.transfers).toMatchObject([
      { id: rec.id, status: "released", requires_secret_phrase: true },
    ]);
    expect(
      (
        await heir.call("POST", `/api/dead-man-switch/transfers/${rec.id}/claim`, {
          body: { secret_phrase: "wrong" },
        })
      ).status,
    ).toBe(403);
    const claim = await heir.call("POST", `/api/dead-man-switch/transfers/${rec.id}/claim`, {
      body: { secret_phrase: "open sesame" },
    });
    expect(claim.status).toBe(200);
    expect(await claim.json()).toMatchObject({ wrapped_recovery_key: key, owner_id: owner.id });
    expect(
      await holders(
        "audit_events",
        "user_id = ? AND action = 'dead_man_switch.retrieve_key'",
        heir.id,
      ),
    ).toEqual(onlyOn(last));
    const status = (await (await owner.call("GET", "/api/dead-man-switch")).json()) as {
      recent_logs: { action: string }[];
    };
    expect(status.recent_logs[0]).toMatchObject({ action: "key_retrieved" });

    // The owner's check-in takes the key back from every recipient, on whatever shard they are.
    expect((await owner.call("POST", "/api/dead-man-switch/check-in")).status).toBe(200);
    const after = (await (await heir.call("GET", "/api/dead-man-switch/transfers")).json()) as {
      transfers: unknown[];
    };
    expect(after.transfers).toEqual([]);
  });

  // A shard apart from the directory is the premise, so with one shard there is no such case to run.
  if (shards.length > 1)
    it("keeps the timer of a switch still on its owner's shard (not yet copied by the upgrade) armed", async () => {
      const owner = await userOn(last);
      const made = await owner.call("POST", "/api/dead-man-switch", {
        body: { inactivity_days: 30, notify_at_days: [7], notify_via: ["push"] },
      });
      expect(made.status).toBe(201);
      // As an upgrade finds it: the row on the owner's shard, none in the directory.
      const row = await valueOn<Record<string, unknown>>(
        directory,
        "SELECT * FROM dead_man_switches WHERE user_id = ?",
        owner.id,
      );
      const cols = Object.keys(row!);
      const insert = `INSERT INTO dead_man_switches (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`;
      await valueOn(directory, "DELETE FROM dead_man_switches WHERE user_id = ?", owner.id);
      await valueOn(last, insert, ...cols.map((c) => row![c]));
      const before = Date.now();
      expect(await fireAlarm(dmsTimer(owner.id))).toBe(true);
      const next = await alarmAt(dmsTimer(owner.id));
      expect(next! - before).toBeGreaterThanOrEqual(60 * 60_000 - 1000);
      expect(next! - before).toBeLessThan(2 * 60 * 60_000);
      // Once copied, the timer runs the switch as before: a period run out triggers it.
      await valueOn(directory, insert, ...cols.map((c) => row![c]));
      await rewindSwitch(owner.id, 31);
      await fireAlarm(dmsTimer(owner.id));
      expect(
        await valueOn<{ status: string }>(
          directory,
          "SELECT status FROM dead_man_switches WHERE user_id = ?",
          owner.id,
        ),
      ).toEqual({ status: "triggered" });
    });
});
