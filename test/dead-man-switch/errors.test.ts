import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import {
  alarmAt,
  dmsTimer,
  fireAlarm,
  rewindSwitch,
  signedInAgain,
  switchRow,
  wrappedKey,
} from "../support/recovery";

const create = (user: TestUser, body: Record<string, unknown> = {}) =>
  user.call("POST", "/api/dead-man-switch", { body });

describe("dead man's switch: validation and state errors", () => {
  it("refuses out-of-range or malformed settings and creates nothing", async () => {
    const user = await TestUser.create();
    const bad: [Record<string, unknown>, string][] = [
      [{ inactivity_days: 6 }, "inactivity_days"],
      [{ inactivity_days: 366 }, "inactivity_days"],
      [{ inactivity_days: 30.5 }, "inactivity_days"],
      [{ notify_at_days: [0] }, "notify_at_days.0"],
      [{ notify_at_days: [3, 3] }, "notify_at_days"],
      [{ notify_via: ["sms"] }, "notify_via.0"],
      [{ notify_via: [] }, "notify_via"],
      [{ enabled: "yes" }, "enabled"],
      [{ secret_phrase: "" }, "secret_phrase"],
      [{ inactivity_days: 7, notify_at_days: [7] }, "notify_at_days"],
    ];
    for (const [body, field] of bad) {
      const err = await expectErrorBody(await create(user, body), 400, "VALIDATION_ERROR");
      expect(err.details?.map((d) => d.field)).toContain(field);
    }
    expect(await switchRow(user.id)).toBeUndefined();
    expect(await alarmAt(dmsTimer(user.id))).toBeNull();
  });

  it("an invalid update changes nothing", async () => {
    const user = await TestUser.create();
    expect((await create(user, { inactivity_days: 20, notify_at_days: [5] })).status).toBe(201);
    const before = await switchRow(user.id);
    await expectErrorBody(await create(user, { inactivity_days: 5 }), 400, "VALIDATION_ERROR");
    await expectErrorBody(await create(user, { inactivity_days: 5 }), 400, "VALIDATION_ERROR");
    await expectErrorBody(await create(user, { notify_at_days: [25] }), 400, "VALIDATION_ERROR");
    expect(await switchRow(user.id)).toEqual(before);
  });

  it("check-in, delete and recipients need a switch (404); check-in of a disabled switch is 409", async () => {
    const user = await TestUser.create();
    await expectErrorBody(
      await user.call("POST", "/api/dead-man-switch/check-in"),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(await user.call("DELETE", "/api/dead-man-switch"), 404, "NOT_FOUND");
    await expectErrorBody(
      await user.call("POST", "/api/dead-man-switch/recipients", {
        body: { recipient_email: "a@example.test", wrapped_recovery_key: wrappedKey() },
      }),
      404,
      "NOT_FOUND",
    );
    expect((await create(user, { enabled: false })).status).toBe(201);
    await expectErrorBody(
      await user.call("POST", "/api/dead-man-switch/check-in"),
      409,
      "CONFLICT",
    );
  });

  it("refuses the owner as recipient, duplicates, and malformed keys", async () => {
    const user = await TestUser.create();
    await create(user);
    const add = (body: Record<string, unknown>) =>
      user.call("POST", "/api/dead-man-switch/recipients", { body });
    await expectErrorBody(
      await add({ recipient_email: user.email.toUpperCase(), wrapped_recovery_key: wrappedKey() }),
      409,
      "CONFLICT",
    );
    expect(
      (await add({ recipient_email: "heir@example.test", wrapped_recovery_key: wrappedKey() }))
        .status,
    ).toBe(201);
    await expectErrorBody(
      await add({ recipient_email: "HEIR@example.test", wrapped_recovery_key: wrappedKey() }),
      409,
      "CONFLICT",
    );
    await expectErrorBody(
      await add({ recipient_email: "not-an-email", wrapped_recovery_key: wrappedKey() }),
      400,
      "VALIDATION_ERROR",
    );
    await expectErrorBody(
      await add({ recipient_email: "x@example.test", wrapped_recovery_key: "not base64 !!" }),
      400,
      "VALIDATION_ERROR",
    );
    await expectErrorBody(
      await add({ recipient_email: "x@example.test" }),
      400,
      "VALIDATION_ERROR",
    );
    await expectErrorBody(
      await user.call("DELETE", "/api/dead-man-switch/recipients/none"),
      404,
      "NOT_FOUND",
    );
  });

  it("claims need the right secret phrase (403 without or wrong), and an unknown transfer is 404", async () => {
    const owner = await TestUser.create();
    const heir = await TestUser.create();
    await create(owner, { secret_phrase: "the phrase" });
    const rec = (await (
      await owner.call("POST", "/api/dead-man-switch/recipients", {
        body: { recipient_email: heir.email, wrapped_recovery_key: wrappedKey() },
      })
    ).json()) as {
      recipient: { id: string };
    };
    await rewindSwitch(owner.id, 40);
    await fireAlarm(dmsTimer(owner.id));
    const claim = (body: Record<string, unknown>) =>
      heir.call("POST", `/api/dead-man-switch/transfers/${rec.recipient.id}/claim`, { body });
    await expectErrorBody(await claim({}), 403, "FORBIDDEN");
    await expectErrorBody(await claim({ secret_phrase: "the phrase!" }), 403, "FORBIDDEN");
    expect((await claim({ secret_phrase: "the phrase" })).status).toBe(200);
    await expectErrorBody(
      await heir.call("POST", "/api/dead-man-switch/transfers/nope/claim", { body: {} }),
      404,
      "NOT_FOUND",
    );
  });

  it("POST, DELETE and recipient changes need a sign-in within 90 seconds (D3)", async () => {
    const fresh = await TestUser.create();
    await create(fresh);
    const stale = await signedInAgain(fresh, { authAge: 120 });
    const calls: [string, string, unknown][] = [
      ["POST", "/api/dead-man-switch", { inactivity_days: 10 }],
      ["DELETE", "/api/dead-man-switch", undefined],
      [
        "POST",
        "/api/dead-man-switch/recipients",
        { recipient_email: "h@example.test", wrapped_recovery_key: wrappedKey() },
      ],
      ["DELETE", "/api/dead-man-switch/recipients/x", undefined],
    ];
    for (const [method, path, body] of calls) {
      const res = await stale.call(method, path, { body });
      const err = await expectErrorBody(res, 401, "STEP_UP_REQUIRED");
      expect(err.maxAge).toBe(90);
      expect(res.headers.get("www-authenticate")).toBe(
        'Bearer error="insufficient_user_authentication", max_age=90',
      );
    }
    expect((await switchRow(fresh.id))!.inactivityDays).toBe(30);
    expect((await stale.call("POST", "/api/dead-man-switch/check-in")).status).toBe(200);
  });

  it("rate-limits POST (10 per 60 s) and check-in (10 per 60 s)", async () => {
    const user = await TestUser.create();
    for (let i = 0; i < 10; i++)
      expect((await create(user, { inactivity_days: 30 + i })).status).toBe(i === 0 ? 201 : 200);
    const limited = await create(user, { inactivity_days: 50 });
    await expectErrorBody(limited, 429, "RATE_LIMITED");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await switchRow(user.id))!.inactivityDays).toBe(39);
    for (let i = 0; i < 10; i++)
      expect((await user.call("POST", "/api/dead-man-switch/check-in")).status).toBe(200);
    await expectErrorBody(
      await user.call("POST", "/api/dead-man-switch/check-in"),
      429,
      "RATE_LIMITED",
    );
  });
});

describe("dead man's switch: recipient limits", () => {
  it("ten recipients can be set up right after creating the switch; an eleventh is 422", async () => {
    const user = await TestUser.create();
    expect((await create(user)).status).toBe(201);
    for (let i = 0; i < 10; i++) {
      const res = await user.call("POST", "/api/dead-man-switch/recipients", {
        body: { recipient_email: `h${i}@example.test`, wrapped_recovery_key: wrappedKey() },
      });
      expect(res.status).toBe(201);
    }
    const res = await user.call("POST", "/api/dead-man-switch/recipients", {
      body: { recipient_email: "h10@example.test", wrapped_recovery_key: wrappedKey() },
    });
    await expectErrorBody(res, 422, "UNPROCESSABLE");
    expect((await create(user, { inactivity_days: 40 })).status).toBe(200);
  });
});
