import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { pushToUser } from "../../src/domains/push";
import { loadConfig, type Bindings } from "../../src/env";
import { TestUser } from "../support/auth";
import { register } from "../support/devices";
import { requested } from "../support/emergency";
import { browserSubscription, subscribe, subscriptionsOf } from "../support/push";
import { db, dmsTimer, fireAlarm, rewindSwitch } from "../support/recovery";

const until = async <T>(f: () => Promise<T>, ok: (v: T) => boolean) => {
  for (let i = 0; i < 50; i++) {
    const v = await f();
    if (ok(v)) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  return f();
};

async function subscribed(user: TestUser) {
  const sub = await browserSubscription();
  const res = await subscribe(user, sub.json);
  expect(res.status).toBe(201);
  return { ...sub, id: ((await res.json()) as { subscription: { id: string } }).subscription.id };
}

describe("Web Push: subscriptions", () => {
  it("answers the VAPID public key to a signed-in caller", async () => {
    const user = await TestUser.create();
    const res = await user.call("GET", "/api/push/vapid-public-key");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ enabled: true, public_key: env.VAPID_PUBLIC_KEY });
  });

  it("registers, upserts by endpoint, lists without the endpoint, and deletes", async () => {
    const user = await TestUser.create();
    const sub = await subscribed(user);
    const again = await subscribe(user, sub.json);
    expect(again.status).toBe(200);
    const list = await subscriptionsOf(user);
    expect(list).toHaveLength(1);
    expect(JSON.stringify(list)).not.toContain(sub.name);
    expect(list[0]!.push_service).toBe(new URL(env.TEST_PUSH_SERVICE_URL).host);
    expect((await user.call("DELETE", `/api/push/subscriptions/${sub.id}`)).status).toBe(200);
    expect(await subscriptionsOf(user)).toHaveLength(0);
  });

  it("refuses bad endpoints and key lengths, and changes nothing", async () => {
    const user = await TestUser.create();
    const sub = await browserSubscription();
    const bad = [
      { ...sub.json, endpoint: "not a url" },
      { ...sub.json, endpoint: "ftp://push.example/x" },
      { ...sub.json, endpoint: "https://user:pw@push.example/x" },
      { ...sub.json, keys: { ...sub.json.keys, p256dh: sub.json.keys.p256dh.slice(0, 40) } },
      { ...sub.json, keys: { ...sub.json.keys, auth: sub.json.keys.auth + "AAAA" } },
      { ...sub.json, keys: { p256dh: sub.json.keys.p256dh } },
    ];
    for (const body of bad)
      expect((await subscribe(user, body)).status, JSON.stringify(body)).toBe(400);
    expect(await subscriptionsOf(user)).toHaveLength(0);
  });

  it("refuses a private-address endpoint where the outbound guard refuses private destinations", async () => {
    const { PushService } = await import("../../src/domains/push/service");
    const strict = loadConfig({ ...env, OUTBOUND_ALLOW_PRIVATE: "false" } as Bindings);
    const user = await TestUser.create();
    const sub = await browserSubscription();
    for (const endpoint of [
      sub.json.endpoint,
      "https://10.0.0.5/push/x",
      "https://[::1]/push/x",
      "http://push.example/x",
    ]) {
      await expect(
        new PushService(db, strict).subscribe(user.id, { ...sub.json, endpoint }),
      ).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
    }
    expect(await subscriptionsOf(user)).toHaveLength(0);
  });

  it("answers 404 for another user's subscription id, and leaves it", async () => {
    const owner = await TestUser.create();
    const other = await TestUser.create();
    const sub = await subscribed(owner);
    expect((await other.call("DELETE", `/api/push/subscriptions/${sub.id}`)).status).toBe(404);
    expect(await subscriptionsOf(owner)).toHaveLength(1);
  });

  it("needs the CSRF token to subscribe", async () => {
    const user = await TestUser.create();
    const sub = await browserSubscription();
    const res = await user.call("POST", "/api/push/subscriptions", { body: sub.json, csrf: false });
    expect(res.status).toBe(403);
    expect(await subscriptionsOf(user)).toHaveLength(0);
  });
});

describe("Web Push: delivery (RFC 8291 payload, RFC 8292 VAPID)", () => {
  it("an emergency access request reaches the owner, decryptable, with a valid VAPID JWT", async () => {
    const owner = await TestUser.create();
    const contact = await TestUser.create();
    const sub = await subscribed(owner);
    await requested(owner, contact);
    const got = await until(sub.received, (r) => r.length > 0);
    expect(got).toHaveLength(1);
    expect(got[0]!.vapid).toMatchObject({
      ok: true,
      aud: new URL(env.TEST_PUSH_SERVICE_URL).origin,
      sub: "mailto:ops@vault.test",
      k: env.VAPID_PUBLIC_KEY,
    });
    expect(got[0]!.payload).toEqual({
      type: "emergency_access_requested",
      title: "Emergency access requested",
      body: expect.stringContaining(contact.email),
      url: "/emergency",
    });
    expect(Number(got[0]!.ttl)).toBeGreaterThan(0);
  });

  it("a switch reminder with notify_via push reaches the owner", async () => {
    const owner = await TestUser.create();
    const sub = await subscribed(owner);
    const res = await owner.call("POST", "/api/dead-man-switch", {
      body: { inactivity_days: 30, notify_at_days: [7, 3], notify_via: ["push"] },
    });
    expect(res.status).toBe(201);
    await rewindSwitch(owner.id, 24);
    await fireAlarm(dmsTimer(owner.id));
    const got = await until(sub.received, (r) => r.length > 0);
    expect(got.map((r) => r.payload)).toEqual([
      expect.objectContaining({
        type: "dead_man_switch_reminder",
        title: "Dead man's switch: check in",
        url: "/dead-man-switch",
      }),
    ]);
  });

  it("a new device reaches the owner's other browsers", async () => {
    const owner = await TestUser.create();
    expect((await register(owner)).status).toBe(201);
    const sub = await subscribed(owner);
    expect((await register(owner)).status).toBe(201);
    const got = await until(sub.received, (r) => r.length > 0);
    expect(got.map((r) => r.payload)).toEqual([
      expect.objectContaining({
        type: "new_device",
        title: "New device signed in",
        url: "/devices",
      }),
    ]);
  });

  it("a 410 from the push service removes the subscription; the notification stands", async () => {
    const owner = await TestUser.create();
    const contact = await TestUser.create();
    const sub = await subscribed(owner);
    await sub.answer(410);
    await requested(owner, contact);
    await until(
      () => subscriptionsOf(owner),
      (l) => l.length === 0,
    );
    expect(await subscriptionsOf(owner)).toHaveLength(0);
    expect(await sub.received()).toHaveLength(1);
    const list = (await (await owner.call("GET", "/api/notifications")).json()) as {
      notifications: { type: string }[];
    };
    expect(list.notifications.map((n) => n.type)).toContain("emergency_access_requested");
  });

  it("a push service error keeps the subscription", async () => {
    const owner = await TestUser.create();
    const contact = await TestUser.create();
    const sub = await subscribed(owner);
    await sub.answer(500);
    await requested(owner, contact);
    expect(await sub.received()).toHaveLength(1);
    expect(await subscriptionsOf(owner)).toHaveLength(1);
  });

  it("sends nothing, and the key route says so, when push is not configured", async () => {
    const off = {
      ...env,
      VAPID_PUBLIC_KEY: undefined,
      VAPID_PRIVATE_KEY: undefined,
      VAPID_SUBJECT: undefined,
    } as Bindings;
    const owner = await TestUser.create();
    const sub = await subscribed(owner);
    await pushToUser(db, loadConfig(off), owner.id, {
      type: "new_device",
      title: "t",
      body: "b",
      url: "/",
    });
    expect(await sub.received()).toHaveLength(0);
    await pushToUser(db, loadConfig(env as Bindings), owner.id, {
      type: "new_device",
      title: "t",
      body: "b",
      url: "/",
    });
    expect(await sub.received()).toHaveLength(1);
  });
});
