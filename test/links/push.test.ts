import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { dbFor } from "../../src/db/client";
import { notifyOpened } from "../../src/domains/links/notify-open";
import { findById } from "../../src/domains/links/repo";
import { loadConfig, type Bindings } from "../../src/env";
import { TestUser } from "../support/auth";
import { textLink } from "../support/links";
import { browserSubscription, subscribe, type Received } from "../support/push";
import { SELF } from "../support/worker";

// The owner's browsers hear of every delivery by Web Push (through the local push service, which
// checks VAPID and decrypts as a browser would): the time and country, never the content.
async function pushes(
  sub: Awaited<ReturnType<typeof browserSubscription>>,
  n: number,
): Promise<Received[]> {
  await expect
    .poll(async () => (await sub.received()).length, { timeout: 5000 })
    .toBeGreaterThanOrEqual(n);
  return sub.received();
}

describe("secure links: Web Push to the owner", () => {
  it("pushes the time and the country of an open to the owner's subscription, with no content", async () => {
    const owner = await TestUser.create();
    const sub = await browserSubscription();
    expect((await subscribe(owner, sub.json)).status).toBe(201);
    const secret = "the boiler code 80-31-XQ";
    const { link } = await textLink(owner, { max_views: 2 }, secret);
    // Looking at a link costs no view and tells nobody.
    expect(
      (
        await SELF.fetch(`https://vault.test/api/links/public/${link.id}`, {
          headers: { "cf-connecting-ip": "198.51.100.201" },
        })
      ).status,
    ).toBe(200);
    const res = await SELF.fetch(`https://vault.test/api/links/public/${link.id}/open`, {
      method: "POST",
      headers: { "cf-connecting-ip": "198.51.100.201", "content-type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(200);
    await res.text();
    const [push] = await pushes(sub, 1);
    expect(push!.vapid.ok).toBe(true);
    expect(push!.payload).toMatchObject({
      type: "secure_link_opened",
      title: "Your secure link was opened",
      url: "/links",
    });
    const body = String((push!.payload as { body: string }).body);
    // Locally the edge names no country (request.cf.country is absent), so the push says none.
    expect(body).toMatch(/^Opened at \d{4}-\d\d-\d\d \d\d:\d\d UTC; 1 of 2 views used\.$/);
    expect(JSON.stringify(push)).not.toContain("80-31");
    expect(await sub.received()).toHaveLength(1);
    // Where the edge names one, the push carries it: the same notice, given the country of the request.
    const db = dbFor(env as Bindings, owner.id);
    const row = (await findById(db, link.id))!;
    const waits: Promise<unknown>[] = [];
    await notifyOpened(db, loadConfig(env as Bindings), row, "NL", (p) => waits.push(p));
    await Promise.all(waits);
    const [, second] = await pushes(sub, 2);
    expect(String((second!.payload as { body: string }).body)).toMatch(
      /^Opened from NL at \d{4}-\d\d-\d\d \d\d:\d\d UTC; 1 of 2 views used\.$/,
    );
  });

  it("pushes nothing for a refused open", async () => {
    const owner = await TestUser.create();
    const sub = await browserSubscription();
    expect((await subscribe(owner, sub.json)).status).toBe(201);
    const { link } = await textLink(owner, { max_views: 1, recipients: ["only@example.org"] });
    const res = await SELF.fetch(`https://vault.test/api/links/public/${link.id}/open`, {
      method: "POST",
      headers: { "cf-connecting-ip": "198.51.100.202", "content-type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(403);
    await res.text();
    // A delivery of another link of the same owner comes through, so the push path is live.
    const other = await textLink(owner, { max_views: 1 });
    const ok = await SELF.fetch(`https://vault.test/api/links/public/${other.link.id}/open`, {
      method: "POST",
      headers: { "cf-connecting-ip": "198.51.100.202", "content-type": "application/json" },
      body: "{}",
    });
    expect(ok.status).toBe(200);
    await ok.text();
    const all = await pushes(sub, 1);
    expect(all).toHaveLength(1);
    expect(String((all[0]!.payload as { body: string }).body)).toContain("1 of 1 views used");
  });
});
