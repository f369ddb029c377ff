import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { readClock } from "../../src/db/change-clock";
import { dbFor } from "../../src/db/client";
import { TestUser } from "../support/auth";
import { createEntry } from "../support/fixtures";
import { Live } from "../support/live-sync";
import { zeroTrustBody } from "../support/entry-totp";
import { invite, sharedPair } from "../support/sharing";
import { connectSource, scan } from "../discovery/support";
import { at, create, importEntry, push } from "./helpers";

/**
 * Each writer announces the clock it committed itself (src/db/clock-announce.ts), so each route
 * that writes what a delta pull sees is checked here: a connected device hears the clock the
 * write left. A writer that forgot to announce leaves the wait below unanswered, and the test
 * fails on its timeout. (Entry create, update and delete and the sync push: live.test.ts.)
 */
const clockOf = async (userId: string) =>
  (await readClock(dbFor(env, userId), userId))[0]?.clock ?? null;

/** Waits until `live` has heard the user's change clock as it stands now (their last commit). */
async function hearsLastCommit(live: Live, userId: string) {
  const clock = await clockOf(userId);
  expect(clock).not.toBeNull();
  await live.until((m) => m.some((x) => x.type === "changed" && Date.parse(x.clock) === clock));
}

/** A user with a connection open, and an entry of theirs whose own notice has been heard. */
async function connectedWithEntry() {
  const user = await TestUser.create();
  const live = await Live.open(user);
  const entry = await createEntry(user);
  await hearsLastCommit(live, user.id);
  return { user, live, entry };
}

describe("live sync: every writer announces its commit", () => {
  it("an import", async () => {
    const user = await TestUser.create();
    const live = await Live.open(user);
    const res = await user.call("POST", "/api/passwords/import", {
      body: { provider: "generic", entries: [importEntry(), importEntry()] },
    });
    expect(res.status).toBe(200);
    await hearsLastCommit(live, user.id);
    expect(live.changes()).toHaveLength(1);
    live.ws.close(1000);
  });

  it("setting and removing an entry's TOTP", async () => {
    const { user, live, entry } = await connectedWithEntry();
    const set = await user.call("POST", `/api/passwords/${entry.id}/totp`, {
      body: zeroTrustBody(),
    });
    expect(set.status).toBeLessThan(300);
    await hearsLastCommit(live, user.id);
    expect((await user.call("DELETE", `/api/passwords/${entry.id}/totp`)).status).toBe(200);
    await hearsLastCommit(live, user.id);
    expect(live.changes()).toHaveLength(3);
    live.ws.close(1000);
  });

  it("a write recipient's edit of a shared entry, heard by the owner", async () => {
    const { owner, recipient, share } = await sharedPair({ permission: "write" });
    const live = await Live.open(owner);
    const res = await recipient.call("PATCH", `/api/sharing/${share.id}/account`, {
      body: { encrypted_data: invite() },
    });
    expect(res.status).toBe(200);
    await hearsLastCommit(live, owner.id);
    live.ws.close(1000);
  });

  it("discovery's placeholders added to the vault", async () => {
    const user = await TestUser.create();
    await connectSource(user, "mailx");
    await scan(user);
    const live = await Live.open(user);
    const res = await user.call("POST", "/api/accounts/add-to-vault", {
      body: { domains: ["github.com"] },
    });
    expect(res.status).toBe(200);
    await hearsLastCommit(live, user.id);
    live.ws.close(1000);
  });

  it("a sync push that changes a row", async () => {
    const user = await TestUser.create();
    const live = await Live.open(user);
    const body = await push(user, [create()]);
    await hearsLastCommit(live, user.id);
    expect(live.changes()).toEqual([body.serverTimestamp]);
    live.ws.close(1000);
  });

  it("a sync push that changes nothing (a retried create, a stale update) tells no one", async () => {
    const user = await TestUser.create();
    const live = await Live.open(user);
    const first = create();
    const created = await push(user, [first]);
    await hearsLastCommit(live, user.id);
    const noop = await push(user, [
      first,
      { action: "update", id: first.id, data: { name: "Old" }, clientUpdatedAt: at(-60_000) },
    ]);
    expect(noop.results.map((r) => r.status)).toEqual(["applied", "conflict_server_wins"]);
    // The next push that writes is the next notice: nothing was sent for the clock between.
    const next = await push(user, [create()]);
    await hearsLastCommit(live, user.id);
    expect(live.changes()).toEqual([created.serverTimestamp, next.serverTimestamp]);
    live.ws.close(1000);
  });
});
