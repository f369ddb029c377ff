import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { TestUser } from "../support/auth";
import {
  createSessionShare,
  openLive,
  readStatusStream,
  registerDevice,
  siteStats,
  ticket,
} from "../support/session-shares";

describe("session share in real Chromium against a local login site", () => {
  it("logs in, a viewer sees frames, clicks reach the site, and the password never reaches the viewer", async () => {
    const owner = await TestUser.create();
    const { created, creds } = await createSessionShare(owner, {
      accessType: "full",
      durationMinutes: 10,
    });
    expect(created.status).toBe("login_in_progress");
    expect(created.shareUrl).toBe(`/s/${created.shareToken}`);

    const { res, events } = await readStatusStream(owner, created.id);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const complete = events.at(-1)!;
    expect(complete.event).toBe("complete");
    expect(complete.data).toEqual({
      type: "complete",
      status: "active",
      livePreviewUrl: `/s/preview/${created.id}`,
    });
    expect(
      events
        .filter((e) => e.event === "status")
        .every((e) => e.data.type === "status" && typeof e.data.currentViewers === "number"),
    ).toBe(true);
    expect((await siteStats(creds.username)).logins).toBe(1);

    const viewer = await TestUser.create();
    const fp = await registerDevice(viewer);
    const page = await viewer.call("GET", created.shareUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    const html = await page.text();
    expect(html).toContain(`/api/session-shares/view/${created.shareToken}/ticket`);
    expect(html).not.toContain(creds.password);

    const t = await ticket(viewer, `/api/session-shares/view/${created.shareToken}/ticket`, fp);
    expect(t.status).toBe(200);
    const tj = (await t.json()) as { wsUrl: string; accessType: string };
    expect(tj.accessType).toBe("full");
    const live = await openLive(tj.wsUrl);
    const frame = await live.waitFor((m) => m.type === "frame");
    expect(typeof frame.data).toBe("string");
    const jpeg = Uint8Array.from(atob(frame.data as string), (c) => c.charCodeAt(0));
    expect([jpeg[0], jpeg[1]]).toEqual([0xff, 0xd8]);

    // The account page's button sits at (100..400, 200..320) in page pixels.
    live.ws.send(
      JSON.stringify({ type: "mouse", event: "mousePressed", button: "left", x: 250, y: 260 }),
    );
    live.ws.send(
      JSON.stringify({ type: "mouse", event: "mouseReleased", button: "left", x: 250, y: 260 }),
    );
    for (let i = 0; i < 40 && (await siteStats(creds.username)).clicks === 0; i++)
      await new Promise((r) => setTimeout(r, 250));
    expect((await siteStats(creds.username)).clicks).toBe(1);

    const row = await env.DB.prepare(
      "SELECT status, current_viewers, sealed_credentials FROM session_shares WHERE id = ?",
    )
      .bind(created.id)
      .first<{ status: string; current_viewers: number; sealed_credentials: string }>();
    expect(row?.status).toBe("active");
    expect(row?.current_viewers).toBe(1);
    expect(row?.sealed_credentials).not.toContain(creds.password);

    const del = await owner.call("DELETE", `/api/session-shares/${created.id}`);
    expect(del.status).toBe(200);
    expect((await live.closed).code).toBe(4000);

    const everything = live.messages.join("\n");
    expect(everything).not.toContain(creds.password);
    expect(everything).not.toContain(btoa(creds.password));
    expect(everything).not.toContain(creds.username.length > 0 ? `"${creds.password}"` : "");
  });
});
