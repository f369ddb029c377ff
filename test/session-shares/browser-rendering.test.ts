import {
  createExecutionContext,
  env,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
import puppeteer from "@cloudflare/puppeteer";
import { describe, expect, it } from "vitest";
import worker, { type SessionShareRoom } from "../../src/index";
import { BROWSER_ABSENT, BROWSER_DAY_SPENT } from "../../src/lib/browser-rendering";
import { TestUser } from "../support/auth";
import { createEntry } from "../support/fixtures";
import { createSessionShare, registerDevice, site, siteAccount } from "../support/session-shares";

/**
 * Session shares (and reset starts) where Cloudflare's Browser Rendering gives no browser: the
 * free plan's 10 minutes a day spent, or a deploy without the BROWSER binding (docs/cost.md,
 * "The free plan"). The person reads why in words; nothing is left half made.
 */

const room = (id: string) => env.SESSION_SHARES.get(env.SESSION_SHARES.idFromName(id));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sharesOf = async (ownerId: string) =>
  (
    await env.DB.prepare("SELECT count(*) AS n FROM session_shares WHERE owner_id = ?")
      .bind(ownerId)
      .first<{ n: number }>()
  )?.n;

/** The worker as deployed without `[browser]`: every other binding as the suite has it. */
async function withoutBrowser(
  user: TestUser,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const { BROWSER: _, ...rest } = env as unknown as Record<string, unknown>;
  return worker.fetch(
    new Request(`https://vault.test${path}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${user.token}`,
        "content-type": "application/json",
        "x-csrf-token": await user.csrf(),
        ...headers,
      },
      body: JSON.stringify(body),
    }),
    rest as never,
    createExecutionContext(),
  );
}

describe("a deployment without Browser Rendering", () => {
  it("refuses a session share in words before storing or sealing anything", async () => {
    const owner = await TestUser.create();
    const creds = await siteAccount();
    const entry = await createEntry(owner, {
      name: "Test site",
      url: `${site()}/login`,
      website: "127.0.0.1",
    });
    const res = await withoutBrowser(owner, "/api/session-shares", {
      accountId: entry.id,
      decryptedUsername: creds.username,
      decryptedPassword: creds.password,
    });
    expect(res.status).toBe(503);
    const body = await res.json();
    expect(body).toEqual({ error: BROWSER_ABSENT, code: "SERVICE_UNAVAILABLE", status: 503 });
    expect(JSON.stringify(body)).not.toContain(creds.password);
    expect(await sharesOf(owner.id)).toBe(0);
  });

  it("refuses a reset start the same way, with no task written", async () => {
    const user = await TestUser.create();
    // DECISIONS D17: resets come from a registered device.
    const device = { "x-device-fingerprint": await registerDevice(user) };
    const res = await withoutBrowser(
      user,
      "/api/tasks/reset",
      { serviceUrl: "https://reset.example.com/", email: `${user.id}@example.test` },
      device,
    );
    expect(res.status, await res.clone().text()).toBe(503);
    expect(await res.json()).toEqual({
      error: BROWSER_ABSENT,
      code: "SERVICE_UNAVAILABLE",
      status: 503,
    });
    const tasks = await env.DB.prepare("SELECT count(*) AS n FROM reset_jobs WHERE user_id = ?")
      .bind(user.id)
      .first<{ n: number }>();
    expect(tasks?.n).toBe(0);
  });
});

describe("a session share when the day's browser time is spent", () => {
  it("ends failed saying so and when to try again, the owner reads it, no credentials are kept", async () => {
    const owner = await TestUser.create();
    // Scheduled, so its room launches only at its alarm, after Browser Rendering is made to refuse.
    const { created, creds } = await createSessionShare(owner, {
      scheduledStart: new Date(Date.now() + 10 * 60_000).toISOString(),
    });
    let launches = 0;
    await runInDurableObject(room(created.id), async (obj: SessionShareRoom) => {
      // The room's own launch, against a binding that answers as Browser Rendering does once the
      // account's browser time for the day is spent.
      const spent = {
        fetch: async () => {
          launches++;
          return new Response("Browser time limit exceeded for today", { status: 429 });
        },
      };
      (obj as unknown as { launchBrowser(): Promise<unknown> }).launchBrowser = () =>
        puppeteer.launch(spent as never, { keep_alive: 600_000 });
    });
    await runDurableObjectAlarm(room(created.id));

    let view: Record<string, unknown> = {};
    for (let i = 0; i < 40 && view.status !== "failed"; i++) {
      const res = await owner.call("GET", `/api/session-shares/${created.id}`);
      view = ((await res.json()) as { session: Record<string, unknown> }).session;
      if (view.status !== "failed") await sleep(250);
    }
    expect(view).toMatchObject({ status: "failed", failureReason: BROWSER_DAY_SPENT });
    expect(view.endedAt).toBeTruthy();
    expect(BROWSER_DAY_SPENT).toContain("after 00:00 UTC");
    expect(launches).toBeGreaterThan(0);
    const row = await env.DB.prepare(
      "SELECT failure_reason, sealed_credentials FROM session_shares WHERE id = ?",
    )
      .bind(created.id)
      .first<{ failure_reason: string; sealed_credentials: string }>();
    expect(row).toEqual({ failure_reason: BROWSER_DAY_SPENT, sealed_credentials: "" });
    expect(JSON.stringify(view)).not.toContain(creds.password);
  });
});
