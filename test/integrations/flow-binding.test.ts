import { SELF } from "../support/worker";
import { describe, expect, it } from "vitest";
import { TestUser } from "../support/auth";
import {
  authorize,
  authUrl,
  callback,
  integrations,
  providerAccount,
} from "../support/mail-provider";

const addr = (p: string) => `${p}-${crypto.randomUUID().slice(0, 8)}@mail.example.test`;
const reason = (l: URL) => `${l.searchParams.get("status")}:${l.searchParams.get("reason")}`;

/** A browser's request to the callback, with exactly the cookies given. */
async function open(url: URL | string, cookie?: string) {
  const headers: Record<string, string> = {
    "cf-connecting-ip": `198.18.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}`,
  };
  if (cookie) headers.cookie = cookie;
  return SELF.fetch(url.toString(), { redirect: "manual", headers });
}

describe("OAuth flow bound to the browser and the session that started it", () => {
  it("GET /auth sets a short-lived __Host- HttpOnly SameSite=Lax flow cookie, reused by the next start", async () => {
    const user = await TestUser.create();
    const res = await user.call("GET", "/api/integrations/mailx/auth");
    const cookie = res.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^__Host-oauth_flow=[A-Za-z0-9_-]{43};/);
    expect(cookie).toMatch(/; HttpOnly/i);
    expect(cookie).toMatch(/; SameSite=Lax/i);
    expect(cookie).toMatch(/; Max-Age=600/i);
    expect(cookie).toMatch(/; Path=\/;/i);
    expect(cookie).not.toMatch(/; Domain=/i);
    expect(cookie).toMatch(/; Secure/i);
    const value = /^__Host-oauth_flow=([^;]+)/.exec(cookie)?.[1];
    const again = await user.call("GET", "/api/integrations/maily/auth", {
      headers: { cookie: `__Host-oauth_flow=${value}` },
    });
    expect(/^__Host-oauth_flow=([^;]+)/.exec(again.headers.get("set-cookie") ?? "")?.[1]).toBe(
      value,
    );
  });

  it("a state opened in a browser with no session is bounced once, then refused: nothing stored for anyone", async () => {
    const attacker = await TestUser.create();
    const url = await authUrl(attacker, "mailx");
    // The victim's browser consents at the provider with the victim's mailbox, then lands here.
    const back = await authorize(url, await providerAccount("mailx", addr("mailx")));
    const first = await open(back);
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("no-store");
    const html = await first.text();
    const next = /http-equiv="refresh" content="0;url=([^"]+)"/.exec(html)?.[1];
    expect(next).toBeTruthy();
    const resumed = new URL(next!.replaceAll("&amp;", "&"), back);
    expect(resumed.searchParams.get("state")).toBe(back.searchParams.get("state"));
    expect(resumed.searchParams.get("resumed")).toBe("1");
    const second = await open(resumed);
    expect(second.status).toBe(302);
    expect(reason(new URL(second.headers.get("location")!, "https://app.test"))).toBe(
      "error:invalid_state",
    );
    expect(await integrations(attacker)).toEqual([]);
  });

  it("the starting browser's flow cookie without a session, after the bounce, is session_required: nothing stored", async () => {
    const user = await TestUser.create();
    const back = await authorize(
      await authUrl(user, "mailx"),
      await providerAccount("mailx", addr("mailx")),
    );
    expect((await open(back, user.defaultHeaders.cookie)).status).toBe(200);
    back.searchParams.set("resumed", "1");
    const res = await open(back, user.defaultHeaders.cookie);
    expect(reason(new URL(res.headers.get("location")!, "https://app.test"))).toBe(
      "error:session_required",
    );
    expect(await integrations(user)).toEqual([]);
  });

  it("the initiating user's session without the flow cookie (another browser) is refused", async () => {
    const user = await TestUser.create();
    const back = await authorize(
      await authUrl(user, "maily"),
      await providerAccount("maily", addr("maily")),
    );
    const res = await open(back, `__Host-access_token=${user.token}`);
    expect(res.status).toBe(302);
    expect(reason(new URL(res.headers.get("location")!, "https://app.test"))).toBe(
      "error:invalid_state",
    );
    expect(await integrations(user)).toEqual([]);
  });

  it("another flow cookie with the right session is refused", async () => {
    const user = await TestUser.create();
    const back = await authorize(
      await authUrl(user, "maily"),
      await providerAccount("maily", addr("maily")),
    );
    const res = await open(
      back,
      `__Host-access_token=${user.token}; __Host-oauth_flow=${"A".repeat(43)}`,
    );
    expect(reason(new URL(res.headers.get("location")!, "https://app.test"))).toBe(
      "error:invalid_state",
    );
    expect(await integrations(user)).toEqual([]);
  });

  it("the starting browser with its session connects (cookie session, as after a redirect)", async () => {
    const user = await TestUser.create();
    const email = addr("mailx");
    const back = await authorize(
      await authUrl(user, "mailx"),
      await providerAccount("mailx", email),
    );
    expect(reason((await callback(back, user)).location)).toBe("connected:null");
    expect((await integrations(user)).map((i) => i.email)).toEqual([email]);
  });
});
