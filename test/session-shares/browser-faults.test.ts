import type { Browser } from "@cloudflare/puppeteer";
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { SessionShareRoom } from "../../src/index";
import { TestUser } from "../support/auth";
import {
  createSessionShare,
  openLive,
  readStatusStream,
  registerDevice,
  siteAccount,
  ticket,
} from "../support/session-shares";

const room = (id: string) => env.SESSION_SHARES.get(env.SESSION_SHARES.idFromName(id));
const row = (id: string) =>
  env.DB.prepare(
    "SELECT status, ended_at, failure_reason, sealed_credentials FROM session_shares WHERE id = ?",
  )
    .bind(id)
    .first<{
      status: string;
      ended_at: string | null;
      failure_reason: string | null;
      sealed_credentials: string;
    }>();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The room's own Chromium, reached the way a crash would reach it: from outside its logic. */
type Inside = { browser?: Browser; page?: unknown; cast?: unknown };

async function endsFailed(id: string) {
  for (let i = 0; i < 40 && (await row(id))?.status !== "failed"; i++) await sleep(250);
  return row(id);
}

describe("Chromium dying under a session share", () => {
  it("mid-session: the share ends failed with its reason, viewers are cut off, no credentials are left", async () => {
    const owner = await TestUser.create();
    const { created } = await createSessionShare(owner);
    expect((await readStatusStream(owner, created.id)).events.at(-1)?.data.status).toBe("active");
    const fp = await registerDevice(owner);
    const t = (await (
      await ticket(owner, `/api/session-shares/${created.id}/ticket`, fp)
    ).json()) as { wsUrl: string };
    const live = await openLive(t.wsUrl);
    await live.waitFor((m) => m.type === "frame");

    await runInDurableObject(room(created.id), async (obj: SessionShareRoom) => {
      await (obj as unknown as Inside).browser!.close();
    });
    const r = await endsFailed(created.id);
    expect(r).toMatchObject({
      status: "failed",
      failure_reason: "the shared browser stopped",
      sealed_credentials: "",
    });
    expect(r?.ended_at).toBeTruthy();
    expect((await Promise.race([live.closed, sleep(5000).then(() => null)]))?.code).toBe(4000);
    expect((await readStatusStream(owner, created.id)).events.at(-1)).toEqual({
      event: "complete",
      data: { type: "complete", status: "failed" },
    });
  });

  it("during a manual login: the share ends failed at once instead of waiting for a login until it expires", async () => {
    const owner = await TestUser.create();
    const { created } = await createSessionShare(
      owner,
      { loginMethod: "manual", accessType: "full" },
      await siteAccount(),
    );
    const fp = await registerDevice(owner);
    const t = (await (
      await ticket(owner, `/api/session-shares/${created.id}/ticket`, fp)
    ).json()) as { wsUrl: string };
    const live = await openLive(t.wsUrl);
    await live.waitFor((m) => m.type === "frame");
    expect((await row(created.id))?.status).toBe("login_in_progress");

    await runInDurableObject(room(created.id), async (obj: SessionShareRoom) => {
      await (obj as unknown as Inside).browser!.close();
    });
    expect(await endsFailed(created.id)).toMatchObject({
      status: "failed",
      failure_reason: "the shared browser stopped",
    });
  });

  it("an object that lost its browser (restarted) ends the share failed at its next tick", async () => {
    const owner = await TestUser.create();
    const { created } = await createSessionShare(owner);
    expect((await readStatusStream(owner, created.id)).events.at(-1)?.data.status).toBe("active");
    // What an eviction leaves: the stored state says active, the memory holds no browser.
    await runInDurableObject(room(created.id), async (obj: SessionShareRoom) => {
      const inside = obj as unknown as Inside;
      const browser = inside.browser!;
      inside.browser = inside.page = inside.cast = undefined;
      await browser.close();
    });
    expect((await row(created.id))?.status).toBe("active");
    await runDurableObjectAlarm(room(created.id));
    expect(await endsFailed(created.id)).toMatchObject({
      status: "failed",
      failure_reason: "the shared browser stopped",
    });
  });
});
