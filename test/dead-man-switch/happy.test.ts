import { SELF } from "../support/worker";
import { describe, expect, it } from "vitest";
import { TestUser } from "../support/auth";
import {
  alarmAt,
  DAY,
  dmsTimer,
  fireAlarm,
  notificationsOf,
  outbox,
  rewindSwitch,
  setSwitch,
  switchRow,
  wrappedKey,
} from "../support/recovery";

type Status = {
  switch: Record<string, unknown> & {
    status: string;
    next_trigger_at: string;
    last_check_in: string;
  };
  recipients: Record<string, unknown>[];
  recent_logs: { action: string; timestamp: string; details: Record<string, unknown> }[];
  days_remaining: number;
  is_warning: boolean;
};

async function status(user: TestUser): Promise<Status> {
  const res = await user.call("GET", "/api/dead-man-switch");
  expect(res.status).toBe(200);
  return (await res.json()) as Status;
}

async function createSwitch(user: TestUser, body: Record<string, unknown> = {}) {
  const res = await user.call("POST", "/api/dead-man-switch", {
    body: { inactivity_days: 30, notify_at_days: [7, 3], notify_via: ["email", "push"], ...body },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { switch: Record<string, unknown> }).switch;
}

async function addRecipient(owner: TestUser, email: string, key = wrappedKey()) {
  const res = await owner.call("POST", "/api/dead-man-switch/recipients", {
    body: { recipient_email: email, recipient_name: "Heir", wrapped_recovery_key: key },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { recipient: { id: string } }).recipient;
}

describe("dead man's switch: configuration", () => {
  it("documents its routes, recipients and transfers included, in the OpenAPI document", async () => {
    const doc = (await (await SELF.fetch("https://vault.test/api/openapi.json")).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    expect(Object.keys(doc.paths["/api/dead-man-switch"]).sort()).toEqual([
      "delete",
      "get",
      "post",
    ]);
    for (const p of [
      "/api/dead-man-switch/check-in",
      "/api/dead-man-switch/recipients",
      "/api/dead-man-switch/recipients/{id}",
      "/api/dead-man-switch/transfers",
      "/api/dead-man-switch/transfers/{id}/claim",
    ]) {
      expect(doc.paths[p], p).toBeDefined();
    }
  });

  it("reports no switch before one exists", async () => {
    const user = await TestUser.create();
    expect(await status(user)).toEqual({
      switch: null,
      recipients: [],
      recent_logs: [],
      days_remaining: null,
      is_warning: false,
    });
  });

  it("creates with 201, updates only the given fields with 200, and never returns the secret phrase", async () => {
    const user = await TestUser.create();
    const sw = await createSwitch(user, {
      secret_phrase: "correct horse battery staple",
      confirmation_required: true,
    });
    expect(sw).toMatchObject({
      user_id: user.id,
      enabled: true,
      inactivity_days: 30,
      notify_at_days: [7, 3],
      notify_via: ["email", "push"],
      status: "idle",
      confirmation_required: true,
      secret_phrase: null,
    });
    const trigger =
      Date.parse(sw.next_trigger_at as string) - Date.parse(sw.last_check_in as string);
    expect(trigger).toBe(30 * DAY);

    const res = await user.call("POST", "/api/dead-man-switch", { body: { inactivity_days: 60 } });
    expect(res.status).toBe(200);
    const updated = ((await res.json()) as { success: boolean; switch: Record<string, unknown> })
      .switch;
    expect(updated).toMatchObject({
      id: sw.id,
      inactivity_days: 60,
      notify_at_days: [7, 3],
      confirmation_required: true,
      secret_phrase: null,
    });

    const row = (await switchRow(user.id))!;
    expect(row.secretPhraseHash).toMatch(/^pbkdf2-sha256\$100000\$/);
    expect(row.secretPhraseHash).not.toContain("horse");
    const s = await status(user);
    expect(s.days_remaining).toBe(60);
    expect(s.is_warning).toBe(false);
    expect(s.recent_logs.map((l) => l.action)).toEqual(["updated", "created"]);
  });

  it("adds and removes recipients; the owner's status lists them with their wrapped key", async () => {
    const owner = await TestUser.create();
    await createSwitch(owner);
    const key = wrappedKey();
    const r = await addRecipient(owner, "Heir.One@Example.test", key);
    await addRecipient(owner, "heir2@example.test");
    const s = await status(owner);
    expect(s.recipients).toHaveLength(2);
    expect(s.recipients[0]).toMatchObject({
      id: r.id,
      user_id: null,
      recipient_email: "heir.one@example.test",
      recipient_name: "Heir",
      status: "pending",
      wrapped_recovery_key: key,
    });
    const del = await owner.call("DELETE", `/api/dead-man-switch/recipients/${r.id}`);
    expect(del.status).toBe(200);
    expect((await status(owner)).recipients.map((x) => x.recipient_email)).toEqual([
      "heir2@example.test",
    ]);
  });

  it("schedules its alarm at the first reminder and moves it on check-in", async () => {
    const user = await TestUser.create();
    const sw = await createSwitch(user);
    expect(await alarmAt(dmsTimer(user.id))).toBe(
      Date.parse(sw.next_trigger_at as string) - 7 * DAY,
    );
    await rewindSwitch(user.id, 10);
    const res = await user.call("POST", "/api/dead-man-switch/check-in");
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      success: boolean;
      next_trigger_at: string;
      days_until_trigger: number;
    };
    expect(body.success).toBe(true);
    expect(body.days_until_trigger).toBe(30);
    expect(await alarmAt(dmsTimer(user.id))).toBe(Date.parse(body.next_trigger_at) - 7 * DAY);
    expect((await status(user)).recent_logs[0].action).toBe("check_in");
  });

  it("disabling stops the timer; status disabled and no next trigger", async () => {
    const user = await TestUser.create();
    await createSwitch(user);
    const res = await user.call("POST", "/api/dead-man-switch", { body: { enabled: false } });
    expect(res.status).toBe(200);
    const s = await status(user);
    expect(s.switch).toMatchObject({ enabled: false, status: "disabled", next_trigger_at: null });
    expect(s.days_remaining).toBeNull();
    expect(await alarmAt(dmsTimer(user.id))).toBeNull();
  });

  it("deleting removes the configuration, recipients, log and alarm", async () => {
    const owner = await TestUser.create();
    await createSwitch(owner);
    await addRecipient(owner, "heir@example.test");
    const res = await owner.call("DELETE", "/api/dead-man-switch");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true });
    expect(await status(owner)).toEqual({
      switch: null,
      recipients: [],
      recent_logs: [],
      days_remaining: null,
      is_warning: false,
    });
    expect(await alarmAt(dmsTimer(owner.id))).toBeNull();
    expect(await fireAlarm(dmsTimer(owner.id))).toBe(false);
  });
});

describe("dead man's switch: the timer (idle → warning → triggered)", () => {
  it("sends each reminder once through every channel, entering warning", async () => {
    const owner = await TestUser.create();
    const sw = await createSwitch(owner);
    await rewindSwitch(owner.id, 24);
    expect((await status(owner)).switch.status).toBe("warning");
    expect(await fireAlarm(dmsTimer(owner.id))).toBe(true);

    const s = await status(owner);
    expect(s.switch.status).toBe("warning");
    expect(s.is_warning).toBe(true);
    expect(s.days_remaining).toBe(6);
    expect(s.recent_logs[0]).toMatchObject({
      action: "reminder_sent",
      details: { days_remaining: 6 },
    });
    const pushes = await notificationsOf(owner.id, "dead_man_switch_reminder");
    expect(pushes).toHaveLength(1);
    expect(pushes[0].body).toContain("6 days");
    const mails = await outbox(owner.email);
    expect(mails.map((m) => m.kind)).toEqual(["dead_man_switch.reminder"]);
    expect(await alarmAt(dmsTimer(owner.id))).toBe(Date.parse(s.switch.next_trigger_at) - 3 * DAY);
    expect(sw.id).toBe(s.switch.id);

    await fireAlarm(dmsTimer(owner.id));
    expect(await notificationsOf(owner.id, "dead_man_switch_reminder")).toHaveLength(1);

    await rewindSwitch(owner.id, 28);
    await fireAlarm(dmsTimer(owner.id));
    expect(await notificationsOf(owner.id, "dead_man_switch_reminder")).toHaveLength(2);
    expect(
      (await outbox(owner.email)).filter((m) => m.kind === "dead_man_switch.reminder"),
    ).toHaveLength(2);
  });

  it("uses only the channels in notify_via", async () => {
    const owner = await TestUser.create();
    await createSwitch(owner, { notify_via: ["push"] });
    await rewindSwitch(owner.id, 24);
    await fireAlarm(dmsTimer(owner.id));
    expect(await notificationsOf(owner.id, "dead_man_switch_reminder")).toHaveLength(1);
    expect(await outbox(owner.email)).toHaveLength(0);

    const mailOnly = await TestUser.create();
    await createSwitch(mailOnly, { notify_via: ["email"] });
    await rewindSwitch(mailOnly.id, 24);
    await fireAlarm(dmsTimer(mailOnly.id));
    expect(await notificationsOf(mailOnly.id, "dead_man_switch_reminder")).toHaveLength(0);
    expect(await outbox(mailOnly.email)).toHaveLength(1);
  });

  it("triggers when the period runs out; recipients are mailed and can then claim their key", async () => {
    const owner = await TestUser.create();
    const heir = await TestUser.create();
    await createSwitch(owner, { secret_phrase: "open sesame" });
    const key = wrappedKey();
    const rec = await addRecipient(owner, heir.email, key);

    const before = await heir.call("GET", "/api/dead-man-switch/transfers");
    expect(((await before.json()) as { transfers: unknown[] }).transfers).toEqual([]);

    await rewindSwitch(owner.id, 31);
    await fireAlarm(dmsTimer(owner.id));
    const s = await status(owner);
    expect(s.switch.status).toBe("triggered");
    expect(s.days_remaining).toBe(0);
    expect(s.recipients[0].status).toBe("released");
    expect(await alarmAt(dmsTimer(owner.id))).toBeNull();
    expect(await notificationsOf(owner.id, "dead_man_switch_triggered")).toHaveLength(1);
    expect((await outbox(heir.email)).map((m) => m.kind)).toEqual(["dead_man_switch.released"]);

    const list = (await (await heir.call("GET", "/api/dead-man-switch/transfers")).json()) as {
      transfers: Record<string, unknown>[];
    };
    expect(list.transfers).toEqual([
      {
        id: rec.id,
        owner_id: owner.id,
        recipient_email: heir.email,
        recipient_name: "Heir",
        status: "released",
        released_at: expect.any(String),
        requires_secret_phrase: true,
      },
    ]);
    const claim = await heir.call("POST", `/api/dead-man-switch/transfers/${rec.id}/claim`, {
      body: { secret_phrase: "open sesame" },
    });
    expect(claim.status).toBe(200);
    expect(await claim.json()).toMatchObject({ wrapped_recovery_key: key, owner_id: owner.id });
    expect((await status(owner)).recent_logs[0]).toMatchObject({
      action: "key_retrieved",
      details: { recipient_email: heir.email },
    });
  });

  it("with confirmation_required, holds the transfer for 48 hours, then releases it", async () => {
    const owner = await TestUser.create();
    const heir = await TestUser.create();
    await createSwitch(owner, { confirmation_required: true });
    const rec = await addRecipient(owner, heir.email);
    await rewindSwitch(owner.id, 31);
    await fireAlarm(dmsTimer(owner.id));

    const row = (await switchRow(owner.id))!;
    expect(row.status).toBe("triggered");
    expect(Date.parse(row.releaseAt!) - Date.parse(row.triggeredAt!)).toBe(48 * 60 * 60 * 1000);
    expect(await alarmAt(dmsTimer(owner.id))).toBe(Date.parse(row.releaseAt!));
    expect((await status(owner)).recipients[0].status).toBe("awaiting_confirmation");
    expect(await outbox(heir.email)).toHaveLength(0);
    expect((await outbox(owner.email)).map((m) => m.kind)).toContain("dead_man_switch.triggered");
    const early = await heir.call("POST", `/api/dead-man-switch/transfers/${rec.id}/claim`, {
      body: {},
    });
    expect(early.status).toBe(403);

    await setSwitch(owner.id, { releaseAt: new Date(Date.now() - 1000).toISOString() });
    await fireAlarm(dmsTimer(owner.id));
    expect((await status(owner)).recipients[0].status).toBe("released");
    expect((await outbox(heir.email)).map((m) => m.kind)).toEqual(["dead_man_switch.released"]);
    const claim = await heir.call("POST", `/api/dead-man-switch/transfers/${rec.id}/claim`, {
      body: {},
    });
    expect(claim.status).toBe(200);
  });

  it("a check-in after triggering returns it to idle and withdraws the transfers", async () => {
    const owner = await TestUser.create();
    const heir = await TestUser.create();
    await createSwitch(owner);
    const rec = await addRecipient(owner, heir.email);
    await rewindSwitch(owner.id, 31);
    await fireAlarm(dmsTimer(owner.id));
    expect((await status(owner)).switch.status).toBe("triggered");

    const res = await owner.call("POST", "/api/dead-man-switch/check-in");
    expect(res.status).toBe(200);
    const s = await status(owner);
    expect(s.switch.status).toBe("idle");
    expect(s.recipients[0].status).toBe("pending");
    expect(s.days_remaining).toBe(30);
    const claim = await heir.call("POST", `/api/dead-man-switch/transfers/${rec.id}/claim`, {
      body: {},
    });
    expect(claim.status).toBe(404);
  });

  it("an alarm that finds nothing due re-arms for the next moment; one for a vanished switch disarms", async () => {
    const owner = await TestUser.create();
    const sw = await createSwitch(owner);
    expect(await fireAlarm(dmsTimer(owner.id))).toBe(true);
    expect(await alarmAt(dmsTimer(owner.id))).toBe(
      Date.parse(sw.next_trigger_at as string) - 7 * DAY,
    );
    expect(await notificationsOf(owner.id)).toHaveLength(0);

    await setSwitch(owner.id, { enabled: false });
    expect(await fireAlarm(dmsTimer(owner.id))).toBe(true);
    expect(await alarmAt(dmsTimer(owner.id))).toBeNull();
  });
});
