import {
  createExecutionContext,
  createScheduledController,
  env,
  waitOnExecutionContext,
} from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { bindingOf, pickShard, shardBindings } from "../../src/db/shards";
import { listBackups, runBackup } from "../../src/domains/backup/backup";
import { distinctDatabases, quoted, schemaOf } from "../../src/domains/backup/databases";
import {
  keys,
  sha256Hex,
  timeOf as timeOfId,
  type Manifest,
} from "../../src/domains/backup/format";
import { createParent, encryptedBody, upload } from "../support/attachments";
import { TestUser } from "../support/auth";
import { register } from "../support/devices";
import { requested } from "../support/emergency";
import { alarmAt, dmsTimer, emergencyTimer } from "../support/recovery";
import { recoveryTimers } from "../../durable-objects/recovery-timer";
import { createEntry } from "../support/fixtures";
import { createNotification } from "../support/notifications";
import { browserSubscription, subscribe } from "../support/push";
import { createShare, invite } from "../support/sharing";
import { enrollAndConfirm } from "../support/two-factor";
import { fillEmptyTables } from "./fill";
import worker from "../../src/index";
import { BACKUP_CRON } from "../../src/kernel/crons";

/**
 * The restore drill (docs/operations.md, "Backup and restore"): a deployment filled with every
 * kind of record, on every shard, is backed up, wiped and restored, and every row of every table
 * and every stored object must come back byte for byte. In its own runtime (vitest.config.mts): the
 * wipe empties the whole deployment.
 */
const e = env as unknown as Record<string, unknown>;
const shards = shardBindings(e);
const backups = () => env.BACKUP_BUCKET as R2Bucket;

async function userOn(shard: string, opts: { admin?: boolean } = {}) {
  for (;;) {
    const id = crypto.randomUUID();
    if (pickShard(id, shards) === shard) return TestUser.create({ sub: id, admin: opts.admin });
  }
}

const ok = async (res: Response, status = 200) => {
  expect(res.status, await res.clone().text()).toBe(status);
  return res;
};

/** Users on every shard, each with the records a person makes, and the records that cross users. */
async function fill() {
  const users = [];
  for (let i = 0; i < Math.max(3, shards.length); i++)
    users.push(await userOn(shards[i % shards.length]!));
  for (const [i, user] of users.entries()) {
    const kept = await createEntry(user, { name: `kept ${i}`, website: `site${i}.test` });
    const gone = await createEntry(user, { name: `deleted ${i}` });
    await ok(await user.call("DELETE", `/api/passwords/${gone.id}`));
    await register(user);
    await createNotification(user);
    await ok(await user.call("POST", "/api/identities", { body: { label: `identity ${i}` } }), 201);
    await upload(user, await encryptedBody({ id: kept.id, type: "password" }, 2048 + i));
    await upload(user, await encryptedBody(await createParent(user, "note"), 512));
    const push = await browserSubscription();
    await ok(await subscribe(user, push.json), 201);
    await ok(
      await user.call("PUT", "/api/sharing/public-key", {
        body: { publicKey: { kty: "EC", crv: "P-256", x: `${i}`.repeat(43), y: "y".repeat(43) } },
      }),
    );
  }
  const [a, b, c] = users as [TestUser, TestUser, TestUser];
  await enrollAndConfirm(a);
  const entry = await createEntry(a, { name: "shared" });
  const share = await createShare(a, {
    accountId: entry.id,
    recipientEmail: b.email,
    wrapped_vault_key_invite: invite(),
  });
  await ok(await b.call("PATCH", `/api/sharing/${share.id}`, { body: { status: "active" } }));
  // A pending request: its grant timer must come back with the restore.
  const { contact } = await requested(b, c);
  await ok(
    await c.call("POST", "/api/dead-man-switch", {
      body: { inactivity_days: 30, notify_at_days: [7], notify_via: ["email"] },
    }),
    201,
  );
  await ok(
    await c.call("POST", "/api/dead-man-switch/recipients", {
      body: { recipient_email: a.email, wrapped_recovery_key: invite() },
    }),
    201,
  );
  return { users, switchOwner: c.id, contactId: contact.id };
}

type Snapshot = { tables: Record<string, string[]>; objects: string[] };

/** Every row of every table of every database, and every object with its bytes' hash and metadata. */
async function snapshot(): Promise<Snapshot> {
  const tables: Record<string, string[]> = {};
  for (const db of await distinctDatabases(e)) {
    const d1 = bindingOf(e, db.binding);
    for (const table of (await schemaOf(d1)).tables) {
      const { results } = await d1.prepare(`SELECT * FROM ${quoted(table)}`).all();
      tables[`${db.binding}.${table}`] = results.map((r) => JSON.stringify(r)).sort();
    }
  }
  const objects: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await env.ATTACHMENTS.list({ cursor });
    for (const o of page.objects) {
      const obj = (await env.ATTACHMENTS.get(o.key))!;
      objects.push(
        JSON.stringify([
          o.key,
          o.size,
          await sha256Hex(await obj.arrayBuffer()),
          obj.httpMetadata,
          obj.customMetadata,
        ]),
      );
    }
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return { tables, objects: objects.sort() };
}

async function wipe() {
  for (const db of await distinctDatabases(e)) {
    const d1 = bindingOf(e, db.binding);
    for (const table of (await schemaOf(d1)).tables)
      await d1.prepare(`DELETE FROM ${quoted(table)}`).run();
  }
  const listed = await env.ATTACHMENTS.list();
  if (listed.objects.length) await env.ATTACHMENTS.delete(listed.objects.map((o) => o.key));
}

/** What scripts/restore.mjs does: step after step until the server answers `next: null`. */
async function restoreAll(admin: TestUser, id: string) {
  let step: number | null = 0;
  const done = { steps: 0, rows: 0, objects: 0 };
  while (step !== null) {
    const res = await ok(
      await admin.call("POST", `/api/admin/backups/${id}/restore`, {
        body: { step, confirm_wipe: true },
      }),
    );
    const r = (await res.json()) as { next: number | null; rows: number; objects: number };
    done.steps++;
    done.rows += r.rows;
    done.objects += r.objects;
    step = r.next;
  }
  return done;
}

describe("backup and restore drill", () => {
  let backupId = "";

  it(`restores every row and object of ${shards.length} shard(s) and the directory, nothing lost, nothing changed`, async () => {
    const { users, switchOwner, contactId } = await fill();
    const timers = {
      dms: await alarmAt(dmsTimer(switchOwner)),
      emergency: await alarmAt(emergencyTimer(contactId)),
    };
    expect(timers.dms).not.toBeNull();
    expect(timers.emergency).not.toBeNull();
    await fillEmptyTables(e);
    const admin = await TestUser.create({ admin: true });
    const before = await snapshot();
    // Every table holds rows, so the comparison covers every kind of record the schema has.
    const everywhere = new Map<string, number>();
    for (const [name, rows] of Object.entries(before.tables))
      everywhere.set(name.split(".")[1]!, (everywhere.get(name.split(".")[1]!) ?? 0) + rows.length);
    expect([...everywhere].filter(([, n]) => n === 0).map(([t]) => t)).toEqual([]);
    expect(before.objects.length).toBeGreaterThanOrEqual(6);

    // A small budget: the backup takes many steps, each resuming where the last one stopped.
    let r = await runBackup(e, backups(), { force: true, budget: { ops: 15, ms: 60_000 } });
    backupId = r.id!;
    let steps = 1;
    while (!r.done) {
      r = await runBackup(e, backups(), { budget: { ops: 15, ms: 60_000 } });
      expect(r.id).toBe(backupId);
      steps++;
    }
    expect(steps).toBeGreaterThanOrEqual(3);
    const manifest = (await (await backups().get(keys(backupId).manifest))!.json()) as Manifest;
    expect(await backups().head(keys(backupId).state)).toBeNull();
    expect(
      manifest.databases
        .map((d) => [d.binding, ...d.aliases])
        .flat()
        .sort(),
    ).toEqual([...new Set(["DIRECTORY", ...shards])].sort());
    expect(manifest.counts.objects).toBe(before.objects.length);
    const rows = Object.values(before.tables).reduce((n, t) => n + t.length, 0);
    expect(Object.values(manifest.counts.rows).reduce((n, c) => n + c, 0)).toBe(rows);

    await wipe();
    // A fresh deployment has no alarms either.
    const recovery = recoveryTimers(env.RECOVERY_TIMER);
    await recovery.cancelDeadManSwitch(switchOwner);
    await recovery.cancelEmergency(contactId);
    expect(await alarmAt(dmsTimer(switchOwner))).toBeNull();
    const wiped = await snapshot();
    expect(Object.values(wiped.tables).every((t) => t.length === 0)).toBe(true);
    expect(wiped.objects).toEqual([]);

    const done = await restoreAll(admin, backupId);
    expect(done).toMatchObject({
      steps: manifest.chunks.length + 2,
      rows,
      objects: before.objects.length,
    });
    const after = await snapshot();
    expect(after.objects).toEqual(before.objects);
    for (const name of Object.keys(before.tables))
      expect(after.tables[name], name).toEqual(before.tables[name]);
    expect(Object.keys(after.tables).sort()).toEqual(Object.keys(before.tables).sort());
    // The recovery timers are armed again from the restored rows, for the same moments.
    expect(await alarmAt(dmsTimer(switchOwner))).toBe(timers.dms);
    expect(await alarmAt(emergencyTimer(contactId))).toBe(timers.emergency);

    // The restored deployment works: the triggers are back, so the counters follow a new entry, and
    // an owner reads their vault through the API.
    const owner = users[0]!;
    const counted = () =>
      bindingOf(e, shards[0]!)
        .prepare("SELECT live FROM vault_counters WHERE user_id = ?")
        .bind(owner.id)
        .first<number>("live");
    const live = (await counted())!;
    await createEntry(owner, { name: "after the restore" });
    expect(await counted()).toBe(live + 1);
    const list = (await (await ok(await owner.call("GET", "/api/passwords?limit=100"))).json()) as {
      data: { name: string }[];
    };
    expect(list.data.map((p) => p.name).sort()).toEqual(["after the restore", "kept 0", "shared"]);
    // A whole deployment filled through the API (about 80 requests), then backed up, wiped and restored.
  }, 120_000);

  it("refuses a tampered chunk, a restore without confirmation, and callers who are not admins", async () => {
    const admin = await TestUser.create({ admin: true });
    const user = await TestUser.create();
    expect((await user.call("GET", "/api/admin/backups")).status).toBe(403);
    expect(
      (
        await user.call("POST", `/api/admin/backups/${backupId}/restore`, {
          body: { step: 0, confirm_wipe: true },
        })
      ).status,
    ).toBe(403);
    const list = (await (await ok(await admin.call("GET", "/api/admin/backups"))).json()) as {
      backups: { id: string; complete: boolean }[];
    };
    expect(list.backups).toContainEqual({ id: backupId, complete: true });
    expect(
      (await admin.call("POST", `/api/admin/backups/${backupId}/restore`, { body: { step: 0 } }))
        .status,
    ).toBe(400);
    expect(
      (
        await admin.call("POST", "/api/admin/backups/not-an-id/restore", {
          body: { step: 0, confirm_wipe: true },
        })
      ).status,
    ).toBe(400);
    expect((await admin.call("GET", "/api/admin/backups/2000-01-01T00-00-00-000Z")).status).toBe(
      404,
    );
    const manifest = (await (await backups().get(keys(backupId).manifest))!.json()) as Manifest;
    const chunk = manifest.chunks.find((c) => c.kind === "rows")!;
    const original = await (await backups().get(chunk.key))!.text();
    await backups().put(chunk.key, original.replace(/"/, '"x'));
    const step = manifest.chunks.indexOf(chunk) + 1;
    const res = await admin.call("POST", `/api/admin/backups/${backupId}/restore`, {
      body: { step },
    });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: string }).error).toContain("checksum");
    await backups().put(chunk.key, original);
  });

  it("keeps backups for the retention period, and the newest complete one always", async () => {
    const later = new Date(Date.now() + 40 * 86_400_000);
    const r = await runBackup(e, backups(), { now: later, retentionDays: 30 });
    expect(r.done).toBe(true);
    expect(r.id).not.toBe(backupId);
    expect(r.deleted).toContain(backupId);
    expect(await listBackups(backups())).toEqual([r.id]);
    // Not due again until the interval has passed; retention never deletes the last one.
    const again = await runBackup(e, backups(), {
      now: new Date(later.getTime() + 3600_000),
      retentionDays: 1,
    });
    expect(again).toMatchObject({ id: r.id, done: true, chunks: 0, deleted: [] });
    const years = await runBackup(e, backups(), {
      now: new Date(later.getTime() + 400 * 86_400_000),
      retentionDays: 30,
      intervalHours: 24 * 365 * 10,
    });
    expect(years.deleted).toEqual([]);
    expect(await listBackups(backups())).toEqual([r.id]);
  });

  it("the ten-minute cron takes the backup when one is due, and does nothing when none is", async () => {
    const [newest] = (await listBackups(backups())).slice(-1);
    const due = timeOfId(newest!) + 25 * 3600_000;
    const tick = async (at: number) => {
      const ctx = createExecutionContext();
      await worker.scheduled!(
        createScheduledController({ scheduledTime: at, cron: BACKUP_CRON }),
        env as never,
        ctx,
      );
      await waitOnExecutionContext(ctx);
    };
    await tick(due);
    const ids = await listBackups(backups());
    expect(ids).toHaveLength(2);
    expect(await backups().head(keys(ids[1]!).manifest)).not.toBeNull();
    await tick(due + 60_000);
    expect(await listBackups(backups())).toEqual(ids);
  });
});
