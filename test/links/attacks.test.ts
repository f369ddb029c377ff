import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import {
  attempt,
  freshIp,
  HOUR,
  linkRow,
  mailedCode,
  opener,
  r2Objects,
  salt,
  sealed,
  textLink,
  verifier,
} from "../support/links";
import { SELF } from "../support/worker";

// The links routes against the usual attacks: another user's ids, a cross-site request riding the
// session cookie, a code used twice or on another link, oversized bodies and fields nobody defined.
const listed = () => `to.${crypto.randomUUID().slice(0, 8)}@example.org`;
const withCookie = (
  user: TestUser,
  method: string,
  path: string,
  init: { body?: unknown; csrf?: string } = {},
) =>
  SELF.fetch(`https://vault.test${path}`, {
    method,
    headers: {
      cookie: `__Host-access_token=${user.token}`,
      "content-type": "application/json",
      ...(init.csrf ? { "x-csrf-token": init.csrf } : {}),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
const withoutRequestId = (body: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(body).filter(([k]) => !/request/i.test(k)));

describe("secure links: attacks", () => {
  it("another user's link id answers as an unknown one to revoke, and no list shows it", async () => {
    const owner = await TestUser.create();
    const intruder = await TestUser.create();
    const { link } = await textLink(owner);
    const theirs = await intruder.call("DELETE", `/api/links/${link.id}`);
    const unknown = await intruder.call("DELETE", `/api/links/${"Q".repeat(22)}`);
    expect(theirs.status).toBe(404);
    expect(withoutRequestId(await theirs.json())).toEqual(withoutRequestId(await unknown.json()));
    expect(
      ((await (await intruder.call("GET", "/api/links")).json()) as { links: unknown[] }).links,
    ).toEqual([]);
    expect(await linkRow(link.id)).toMatchObject({ revoked_at: null, content_purged_at: null });
    expect(await r2Objects(owner.id)).toHaveLength(1);
  });

  it("a request riding the session cookie without the CSRF token creates and revokes nothing", async () => {
    const owner = await TestUser.create();
    const { content } = await sealed("cookie-riding");
    const body = { kind: "text", content, expires_in_seconds: HOUR, max_views: 1 };
    await expectErrorBody(
      await withCookie(owner, "POST", "/api/links", { body }),
      403,
      "FORBIDDEN",
    );
    expect(await r2Objects(owner.id)).toEqual([]);
    const { link } = await textLink(owner);
    await expectErrorBody(
      await withCookie(owner, "DELETE", `/api/links/${link.id}`),
      403,
      "FORBIDDEN",
    );
    await expectErrorBody(
      await withCookie(owner, "DELETE", `/api/links/${link.id}`, { csrf: "forged" }),
      403,
      "FORBIDDEN",
    );
    expect(await linkRow(link.id)).toMatchObject({ revoked_at: null });
    // The same cookie with the page's token does it: the refusal was the missing token.
    expect(
      (await withCookie(owner, "DELETE", `/api/links/${link.id}`, { csrf: await owner.csrf() }))
        .status,
    ).toBe(200);
  });

  it("a code opens once, only on its own link; a replay counts nothing", async () => {
    const owner = await TestUser.create();
    const to = listed();
    const a = await textLink(owner, { max_views: 3, recipients: [to] });
    const b = await textLink(owner, { max_views: 3, recipients: [to] });
    const mine = await attempt(a.link.id, to);
    const code = await mailedCode(to, 1);
    const o = opener(freshIp());
    // On another link (same owner, same address): as if it did not exist.
    expect(
      (
        await expectErrorBody(
          await o.open(b.link.id, { challenge: mine.challenge, code }),
          403,
          "FORBIDDEN",
        )
      ).reason,
    ).toBe("code_expired");
    expect((await o.open(a.link.id, { challenge: mine.challenge, code })).status).toBe(200);
    // Again, and again in parallel: spent, and no wrong code counted against the link.
    const replays = await Promise.all(
      [0, 1, 2].map(() => opener(freshIp()).open(a.link.id, { challenge: mine.challenge, code })),
    );
    for (const r of replays)
      expect((await expectErrorBody(r, 403, "FORBIDDEN")).reason).toBe("code_expired");
    expect(await linkRow(a.link.id)).toMatchObject({ views_used: 1, failed_codes: 0 });
    expect(await linkRow(b.link.id)).toMatchObject({ views_used: 0, failed_codes: 0 });
  });

  it("refuses oversized bodies: the public routes take a few kilobytes, creating 36 MB", async () => {
    const owner = await TestUser.create();
    const { link } = await textLink(owner, { recipients: [listed()] });
    const post = (path: string, body: string) =>
      SELF.fetch(`https://vault.test${path}`, {
        method: "POST",
        headers: { "cf-connecting-ip": freshIp(), "content-type": "application/json" },
        body,
      });
    const padded = (fields: Record<string, unknown>) =>
      JSON.stringify({ ...fields, pad: "x".repeat(8 * 1024) });
    await expectErrorBody(
      await post(`/api/links/public/${link.id}/open`, padded({ verifier: verifier() })),
      413,
      "PAYLOAD_TOO_LARGE",
    );
    await expectErrorBody(
      await post(`/api/links/public/${link.id}/code`, padded({ email: "a@example.org" })),
      413,
      "PAYLOAD_TOO_LARGE",
    );
    expect(await linkRow(link.id)).toMatchObject({ views_used: 0, failed_codes: 0 });
    expect(
      (await env.DB.prepare("SELECT count(*) AS n FROM secure_link_codes WHERE link_id = ?")
        .bind(link.id)
        .first<{ n: number }>())!.n,
    ).toBe(0);
    const huge = JSON.stringify({
      kind: "file",
      content: "A".repeat(36 * 1024 * 1024),
      expires_in_seconds: HOUR,
      max_views: 1,
    });
    await expectErrorBody(
      await owner.call("POST", "/api/links", {
        rawBody: huge,
        headers: { "content-type": "application/json" },
      }),
      413,
      "PAYLOAD_TOO_LARGE",
    );
    expect(await r2Objects(owner.id)).toHaveLength(1);
  });

  it("refuses fields nobody defined, nested ones included, and stores nothing", async () => {
    const owner = await TestUser.create();
    const { content } = await sealed("x");
    const good = { kind: "text", content, expires_in_seconds: HOUR, max_views: 1 };
    for (const body of [
      { ...good, passphrase: { salt: salt(), verifier: verifier(), hint: "the dog" } },
      { ...good, owner_id: "someone-else" },
      { ...good, views_used: 0 },
    ]) {
      await expectErrorBody(
        await owner.call("POST", "/api/links", { body }),
        400,
        "VALIDATION_ERROR",
      );
    }
    expect(await r2Objects(owner.id)).toEqual([]);
    const { link } = await textLink(owner, { recipients: [listed()] });
    const o = opener(freshIp());
    const code = await SELF.fetch(`https://vault.test/api/links/public/${link.id}/code`, {
      method: "POST",
      headers: { "cf-connecting-ip": freshIp(), "content-type": "application/json" },
      body: JSON.stringify({ email: "a@example.org", listed: true }),
    });
    await expectErrorBody(code, 400, "VALIDATION_ERROR");
    await expectErrorBody(
      await o.open(link.id, {
        challenge: "A".repeat(22),
        code: "123456",
        address: "a@example.org",
      }),
      400,
      "VALIDATION_ERROR",
    );
    expect(
      (await env.DB.prepare("SELECT count(*) AS n FROM secure_link_codes WHERE link_id = ?")
        .bind(link.id)
        .first<{ n: number }>())!.n,
    ).toBe(0);
  });

  it("the public answers, which carry the sender's bytes, are never sniffed as another type", async () => {
    const owner = await TestUser.create();
    const { link } = await textLink(owner, { max_views: 1 }, "<html><script>alert(1)</script>");
    const o = opener(freshIp());
    const meta = await o.meta(link.id);
    const open = await o.open(link.id);
    expect(open.status).toBe(200);
    for (const res of [meta, open]) {
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      // Read to the end: cancelling the delivery mid-stream fails the stream inside the worker.
      await res.text();
    }
    const r = await textLink(owner, { recipients: [listed()] });
    const asked = await o.code(r.link.id, "a@example.org");
    expect(asked.status).toBe(202);
    expect(asked.headers.get("x-content-type-options")).toBe("nosniff");
    await asked.text();
  });
});
