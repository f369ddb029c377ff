import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import {
  alarmAt,
  DAY,
  dmsTimer,
  fireAlarm,
  rewindSwitch,
  signedInAgain,
  switchRow,
  wrappedKey,
} from "../support/recovery";

async function setUp() {
  const owner = await TestUser.create();
  const heir = await TestUser.create();
  const stranger = await TestUser.create();
  expect(
    (await owner.call("POST", "/api/dead-man-switch", { body: { secret_phrase: "phrase one" } }))
      .status,
  ).toBe(201);
  const res = await owner.call("POST", "/api/dead-man-switch/recipients", {
    body: { recipient_email: heir.email, wrapped_recovery_key: wrappedKey() },
  });
  const rec = ((await res.json()) as { recipient: { id: string } }).recipient;
  return { owner, heir, stranger, rec };
}

describe("dead man's switch: who may do what", () => {
  it("another user sees none of the owner's switch and cannot remove its recipients (404)", async () => {
    const { owner, stranger, rec } = await setUp();
    const status = (await (await stranger.call("GET", "/api/dead-man-switch")).json()) as {
      switch: unknown;
      recipients: unknown[];
    };
    expect(status.switch).toBeNull();
    expect(status.recipients).toEqual([]);
    await expectErrorBody(
      await stranger.call("DELETE", `/api/dead-man-switch/recipients/${rec.id}`),
      404,
      "NOT_FOUND",
    );
    const own = (await (await owner.call("GET", "/api/dead-man-switch")).json()) as {
      recipients: unknown[];
    };
    expect(own.recipients).toHaveLength(1);
  });

  it("no one but the named recipient can claim, even after the trigger; the recipient not before it", async () => {
    const { owner, heir, stranger, rec } = await setUp();
    const claim = (u: TestUser) =>
      u.call("POST", `/api/dead-man-switch/transfers/${rec.id}/claim`, {
        body: { secret_phrase: "phrase one" },
      });
    await expectErrorBody(await claim(heir), 404, "NOT_FOUND");
    await rewindSwitch(owner.id, 31);
    await fireAlarm(dmsTimer(owner.id));
    await expectErrorBody(await claim(stranger), 404, "NOT_FOUND");
    await expectErrorBody(await claim(owner), 404, "NOT_FOUND");
    const strangerList = (await (
      await stranger.call("GET", "/api/dead-man-switch/transfers")
    ).json()) as { transfers: unknown[] };
    expect(strangerList.transfers).toEqual([]);
    expect((await claim(heir)).status).toBe(200);
    const bound = (await (await owner.call("GET", "/api/dead-man-switch")).json()) as {
      recipients: { user_id: string }[];
    };
    expect(bound.recipients[0].user_id).toBe(heir.id);
  });

  it("never returns the secret phrase or its hash", async () => {
    const { owner } = await setUp();
    const text = await (await owner.call("GET", "/api/dead-man-switch")).text();
    expect(text).not.toContain("phrase one");
    expect(text).not.toContain("pbkdf2");
    expect(JSON.parse(text).switch.secret_phrase).toBeNull();
  });
});

describe("dead man's switch: a sign-in resets the timer (D7)", () => {
  it("a request with an auth_time later than last_check_in returns a warning switch to idle", async () => {
    const owner = await TestUser.create();
    await owner.call("POST", "/api/dead-man-switch", {
      body: { inactivity_days: 30, notify_at_days: [7] },
    });
    await rewindSwitch(owner.id, 25);
    await fireAlarm(dmsTimer(owner.id));
    expect((await switchRow(owner.id))!.status).toBe("warning");

    const again = await signedInAgain(owner, { authAge: 60 });
    const res = await again.call("GET", "/api/passwords");
    expect(res.status).toBe(200);
    const row = (await switchRow(owner.id))!;
    expect(row.status).toBe("idle");
    expect(row.remindersSent).toEqual([]);
    expect(Date.now() - Date.parse(row.lastCheckIn)).toBeLessThan(60_000);
    expect(await alarmAt(dmsTimer(owner.id))).toBe(Date.parse(row.nextTriggerAt!) - 7 * DAY);
    const status = (await (await again.call("GET", "/api/dead-man-switch")).json()) as {
      recent_logs: { action: string }[];
      days_remaining: number;
    };
    expect(status.recent_logs[0].action).toBe("sign_in");
    expect(status.days_remaining).toBe(30);
  });

  it("a token from an older sign-in, or one without auth_time, does not reset it", async () => {
    const owner = await TestUser.create();
    await owner.call("POST", "/api/dead-man-switch", { body: { inactivity_days: 30 } });
    await rewindSwitch(owner.id, 20);
    const before = (await switchRow(owner.id))!.lastCheckIn;
    const old = await signedInAgain(owner, { authAge: 21 * 24 * 60 * 60 });
    expect((await old.call("GET", "/api/dead-man-switch")).status).toBe(200);
    const none = await signedInAgain(owner, { authAge: null });
    expect((await none.call("GET", "/api/passwords")).status).toBe(200);
    expect((await switchRow(owner.id))!.lastCheckIn).toBe(before);
  });

  it("a sign-in after the trigger withdraws released transfers", async () => {
    const { owner, heir, rec } = await setUp();
    await rewindSwitch(owner.id, 31);
    await fireAlarm(dmsTimer(owner.id));
    const again = await signedInAgain(owner, { authAge: 5 });
    await again.call("GET", "/api/auth/csrf-token");
    expect((await switchRow(owner.id))!.status).toBe("idle");
    await expectErrorBody(
      await heir.call("POST", `/api/dead-man-switch/transfers/${rec.id}/claim`, {
        body: { secret_phrase: "phrase one" },
      }),
      404,
      "NOT_FOUND",
    );
  });

  it("a sign-in does not re-enable a disabled switch", async () => {
    const owner = await TestUser.create();
    await owner.call("POST", "/api/dead-man-switch", { body: { enabled: false } });
    await rewindSwitch(owner.id, 3);
    const again = await signedInAgain(owner, { authAge: 1 });
    await again.call("GET", "/api/dead-man-switch");
    const row = (await switchRow(owner.id))!;
    expect(row.enabled).toBe(false);
    expect(row.status).toBe("disabled");
  });
});
