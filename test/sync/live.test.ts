import { env, runInDurableObject } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { decodeJwt } from "jose";
import { describe, expect, it } from "vitest";
import { LiveSyncHub, liveSyncHub } from "../../durable-objects/live-sync-hub";
import { advanceClock } from "../../src/db/change-clock";
import { announceClocks } from "../../src/db/clock-announce";
import { dbFor } from "../../src/db/client";
import { batchable } from "../../src/db/d1";
import { LIVE_SYNC_CLOSE } from "../../src/kernel/live-sync";
import { expectErrorBody, signToken, TestUser } from "../support/auth";
import { createEntry } from "../support/fixtures";
import { SELF } from "../support/worker";
import { handshake, Live, LIVE_URL } from "../support/live-sync";
import { create, push } from "./helpers";

const entryClock = async (userId: string, id: string) =>
  (
    await env.DB.prepare("SELECT change_seq AS c FROM passwords WHERE id = ? AND user_id = ?")
      .bind(id, userId)
      .first<{ c: number }>()
  )?.c;

describe("live sync: connecting", () => {
  it("needs a signed-in user: no token and a forged token are 401", async () => {
    await expectErrorBody(await handshake({}), 401, "UNAUTHORIZED");
    await expectErrorBody(
      await handshake({ authorization: `Bearer ${await signToken({ foreignKey: true })}` }),
      401,
      "UNAUTHORIZED",
    );
    await expectErrorBody(
      await handshake({
        "sec-websocket-protocol": `vault-live, vault-bearer.${await signToken({ foreignKey: true })}`,
      }),
      401,
      "UNAUTHORIZED",
    );
  });

  it("takes the bearer token offered as a subprotocol, as the browser's WebSocket must send it", async () => {
    const user = await TestUser.create();
    const res = await handshake({
      "sec-websocket-protocol": `vault-live, vault-bearer.${user.token}`,
    });
    expect(res.status).toBe(101);
    const live = new Live(res.webSocket!);
    expect((await live.until((m) => m.length > 0))[0]).toEqual({ type: "hello", clock: null });
    expect(await liveSyncHub(env.LIVE_SYNC, user.id).state()).toMatchObject({
      userId: user.id,
      connections: 1,
    });
    live.ws.close(1000);
  });

  it("is a WebSocket speaking vault-live, or 400", async () => {
    const user = await TestUser.create();
    const plain = await user.call("GET", "/api/sync/live");
    expect((await expectErrorBody(plain, 400, "VALIDATION_ERROR")).details?.[0]?.field).toBe(
      "upgrade",
    );
    const noProtocol = await SELF.fetch(LIVE_URL, {
      headers: { upgrade: "websocket", authorization: `Bearer ${user.token}` },
    });
    expect((await expectErrorBody(noProtocol, 400, "VALIDATION_ERROR")).details?.[0]?.field).toBe(
      "sec-websocket-protocol",
    );
  });

  it("refuses the session cookie from another site's page (cross-site WebSocket hijacking)", async () => {
    const user = await TestUser.create();
    const cookie = `__Host-access_token=${user.token}`;
    await expectErrorBody(
      await handshake({ cookie, origin: "https://evil.test" }),
      403,
      "FORBIDDEN",
    );
    const own = await handshake({ cookie, origin: "https://vault.test" });
    expect(own.status).toBe(101);
    new Live(own.webSocket!).ws.close(1000);
  });

  it("does not take an empty or stray bearer subprotocol beside the cookie as a bearer: another site's page is still refused", async () => {
    const user = await TestUser.create();
    const cookie = `__Host-access_token=${user.token}`;
    // A page may offer any subprotocol names; only a bearer token that authenticated skips the origin check.
    for (const protocols of [
      "vault-live, vault-bearer.",
      "vault-bearer., vault-live",
      "vault-live, x-vault-bearer.abc",
    ]) {
      const res = await handshake({
        cookie,
        origin: "https://evil.test",
        "sec-websocket-protocol": protocols,
      });
      await expectErrorBody(res, 403, "FORBIDDEN");
    }
    expect(await liveSyncHub(env.LIVE_SYNC, user.id).state()).toMatchObject({ connections: 0 });
    // A bearer that does not verify is refused, cookie or not.
    await expectErrorBody(
      await handshake({
        cookie,
        origin: "https://evil.test",
        "sec-websocket-protocol": "vault-live, vault-bearer.not.a.jwt",
      }),
      401,
      "UNAUTHORIZED",
    );
  });

  it("a real bearer token needs no Origin, or opens from any origin; the app's own page with its cookie still opens", async () => {
    const user = await TestUser.create();
    for (const origin of [undefined, "https://evil.test"]) {
      const res = await handshake({
        "sec-websocket-protocol": `vault-live, vault-bearer.${user.token}`,
        ...(origin ? { origin } : {}),
      });
      expect(res.status).toBe(101);
      new Live(res.webSocket!).ws.close(1000);
    }
    const own = await handshake({
      cookie: `__Host-access_token=${user.token}`,
      origin: "https://vault.test",
      "sec-websocket-protocol": "vault-live, vault-bearer.",
    });
    expect(own.status).toBe(101);
    new Live(own.webSocket!).ws.close(1000);
  });

  it("caps the connections one user holds open (LIVE_SYNC_MAX_CONNECTIONS, 20)", async () => {
    const user = await TestUser.create();
    const open: Live[] = [];
    for (let i = 0; i < 20; i++) open.push(await Live.open(user));
    const res = await handshake({ authorization: `Bearer ${user.token}` });
    await expectErrorBody(res, 429, "RATE_LIMITED");
    expect(res.headers.get("retry-after")).toBe("60");
    // Another user is not counted against this one.
    const other = await Live.open(await TestUser.create());
    other.ws.close(1000);
    for (const l of open) l.ws.close(1000);
  });
});

describe("live sync: notices", () => {
  it("a write notifies the owner's connections after it committed, with the clock and no content", async () => {
    const user = await TestUser.create();
    const a = await Live.open(user);
    const b = await Live.open(user);
    let seenAtNotice: number | undefined;
    const { id } = await createEntry(user);
    await a.until((m) => m.some((x) => x.type === "changed"));
    // Read the row the moment the notice is in hand: it is already there, stamped with that clock.
    const clock = Date.parse(a.changes()[0]);
    seenAtNotice = await entryClock(user.id, id);
    expect(seenAtNotice).toBe(clock);
    await b.until((m) => m.some((x) => x.type === "changed"));
    expect(b.changes()).toEqual(a.changes());
    expect(JSON.stringify(a.messages)).not.toContain(id);
    expect(await liveSyncHub(env.LIVE_SYNC, user.id).state()).toEqual({
      userId: user.id,
      connections: 2,
      clock,
    });
    // An update and a delete each move the clock again.
    expect(
      (await user.call("PATCH", `/api/passwords/${id}`, { body: { name: "Renamed" } })).status,
    ).toBe(200);
    await a.until((m) => m.filter((x) => x.type === "changed").length >= 2);
    expect((await user.call("DELETE", `/api/passwords/${id}`)).status).toBe(200);
    await a.until((m) => m.filter((x) => x.type === "changed").length >= 3);
    const clocks = a.changes().map(Date.parse);
    expect(clocks[1]).toBeGreaterThan(clocks[0]);
    expect(clocks[2]).toBeGreaterThan(clocks[1]);
    a.ws.close(1000);
    b.ws.close(1000);
  });

  it("a sync push notifies once for its batch; another user's connections hear nothing", async () => {
    const owner = await TestUser.create();
    const stranger = await TestUser.create();
    const mine = await Live.open(owner);
    const theirs = await Live.open(stranger);
    const body = await push(owner, [create(), create()]);
    await mine.until((m) => m.some((x) => x.type === "changed"));
    expect(Date.parse(mine.changes()[0])).toBeLessThanOrEqual(Date.parse(body.serverTimestamp));
    // The stranger's hub is another object: its own write is the first thing it hears.
    await createEntry(stranger);
    await theirs.until((m) => m.some((x) => x.type === "changed"));
    expect(theirs.changes()).toHaveLength(1);
    expect(theirs.changes()[0]).not.toBe(mine.changes()[0]);
    expect(mine.changes()).toHaveLength(1);
    mine.ws.close(1000);
    theirs.ws.close(1000);
  });

  it("a batch that fails (rolled back) notifies nothing; the next committed one does", async () => {
    const user = await TestUser.create();
    const live = await Live.open(user);
    const db = dbFor(env, user.id);
    // As every writer does: the batch, then the announcement of the clock it committed.
    const write = async (statements: Parameters<typeof db.batch>[0]) => {
      const out = await db.batch(statements);
      announceClocks(env, out[0]);
      return out;
    };
    await expect(
      write([advanceClock(db, user.id), batchable(db, sql`INSERT INTO no_such_table VALUES (1)`)]),
    ).rejects.toThrow();
    expect(await liveSyncHub(env.LIVE_SYNC, user.id).state()).toMatchObject({ clock: null });
    const [advanced] = await write([advanceClock(db, user.id)]);
    const committed = (advanced as unknown as { results: { advanced_clock: number }[] }).results[0]
      .advanced_clock;
    await live.until((m) => m.some((x) => x.type === "changed"));
    expect(live.changes()).toEqual([new Date(committed).toISOString()]);
    live.ws.close(1000);
  });

  it("an older clock arriving late is not sent again", async () => {
    const user = await TestUser.create();
    const live = await Live.open(user);
    const hub = liveSyncHub(env.LIVE_SYNC, user.id);
    const now = Date.now();
    expect(await hub.notify(now)).toBe(1);
    expect(await hub.notify(now - 10)).toBe(0);
    expect(await hub.notify(now)).toBe(0);
    expect(await hub.notify(now + 1)).toBe(1);
    await live.until((m) => m.filter((x) => x.type === "changed").length >= 2);
    expect(live.changes()).toEqual([new Date(now).toISOString(), new Date(now + 1).toISOString()]);
    live.ws.close(1000);
  });

  it("a connection whose token has run out is closed at the next notice (4001), to reconnect with a fresh one", async () => {
    const user = await TestUser.create();
    const shortLived = await TestUser.create({ sub: user.id, expiresIn: 5 });
    const expiring = await Live.open(shortLived);
    const fresh = await Live.open(user);
    // Past the short token's exp (whole seconds, RFC 7519 section 4.1.4).
    await new Promise((r) =>
      setTimeout(r, decodeJwt(shortLived.token).exp! * 1000 - Date.now() + 50),
    );
    expect(await liveSyncHub(env.LIVE_SYNC, user.id).notify(Date.now())).toBe(1);
    await expiring.until(() => expiring.closes.length > 0);
    expect(expiring.closes).toEqual([LIVE_SYNC_CLOSE.TOKEN_EXPIRED]);
    expect(expiring.changes()).toEqual([]);
    await fresh.until((m) => m.some((x) => x.type === "changed"));
    fresh.ws.close(1000);
  });
});

describe("live sync: the hub's state", () => {
  it("lives in storage and the runtime's sockets: a new instance (after eviction) knows user, connections and clock", async () => {
    const user = await TestUser.create();
    const live = await Live.open(user);
    const { id } = await createEntry(user);
    await live.until((m) => m.some((x) => x.type === "changed"));
    const clock = (await entryClock(user.id, id))!;
    const stub = env.LIVE_SYNC.get(env.LIVE_SYNC.idFromName(user.id));
    await runInDurableObject(stub, async (_instance, state) => {
      const restored = new LiveSyncHub(state, env);
      expect(await restored.state()).toEqual({ userId: user.id, connections: 1, clock });
      // It refuses to be told about another user (a hub is one user's by name).
      await expect(restored.notify(crypto.randomUUID(), clock + 1)).rejects.toThrow();
    });
    // A device connecting now is greeted with the last clock.
    const late = await Live.open(user);
    expect(late.messages[0]).toEqual({ type: "hello", clock: new Date(clock).toISOString() });
    live.ws.close(1000);
    late.ws.close(1000);
  });
});
