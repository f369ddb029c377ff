import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  purgeEndedSessionShares,
  SESSION_SHARE_RETENTION_DAYS,
} from "../../src/domains/session-shares/purge";
import { expectErrorBody, TestUser } from "../support/auth";
import { createEntry } from "../support/fixtures";
import { createSessionShare, readStatusStream, site, siteAccount } from "../support/session-shares";

const sealed = async (id: string) =>
  (
    await env.DB.prepare("SELECT sealed_credentials AS s FROM session_shares WHERE id = ?")
      .bind(id)
      .first<{ s: string }>()
  )?.s;

describe("session-share credentials are erased once they have done their job", () => {
  it("an automated login erases them as soon as it is done; the share stays live", async () => {
    const owner = await TestUser.create();
    const { created } = await createSessionShare(owner);
    expect(await sealed(created.id)).not.toBe("");
    const { events } = await readStatusStream(owner, created.id);
    expect(events.at(-1)?.data.status).toBe("active");
    expect(await sealed(created.id)).toBe("");
    await owner.call("DELETE", `/api/session-shares/${created.id}`);
  });

  it("a failed login erases them", async () => {
    const owner = await TestUser.create();
    const account = await siteAccount();
    const { created } = await createSessionShare(
      owner,
      {},
      { username: account.username, password: `${account.password}-wrong` },
    );
    const { events } = await readStatusStream(owner, created.id);
    expect(events.at(-1)?.data.status).toBe("failed");
    expect(await sealed(created.id)).toBe("");
  });

  it("revoking a scheduled share (never logged in) erases them", async () => {
    const owner = await TestUser.create();
    const { created } = await createSessionShare(owner, {
      scheduledStart: new Date(Date.now() + 10 * 60_000).toISOString(),
    });
    expect(await sealed(created.id)).not.toBe("");
    expect(
      (
        await owner.call("PATCH", `/api/session-shares/${created.id}`, {
          body: { action: "revoke" },
        })
      ).status,
    ).toBe(200);
    expect(await sealed(created.id)).toBe("");
  });

  it("a manual share needs no credentials and stores none; an automated one still needs both", async () => {
    const owner = await TestUser.create();
    const entry = await createEntry(owner, {
      name: "Test site",
      url: `${site()}/login`,
      website: "127.0.0.1",
    });
    const res = await owner.call("POST", "/api/session-shares", {
      body: {
        accountId: entry.id,
        loginMethod: "manual",
        scheduledStart: new Date(Date.now() + 10 * 60_000).toISOString(),
      },
    });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    expect(await sealed(id)).toBe("");
    const err = await expectErrorBody(
      await owner.call("POST", "/api/session-shares", {
        body: { accountId: entry.id, decryptedUsername: "someone" },
      }),
      400,
      "VALIDATION_ERROR",
    );
    expect(err.details?.[0].field).toBe("decryptedPassword");
    await owner.call("DELETE", `/api/session-shares/${id}`);
  });

  it("ended shares' rows are deleted after the retention period; live and recent ones stay", async () => {
    const owner = crypto.randomUUID();
    const day = 24 * 60 * 60 * 1000;
    const at = (ms: number) => new Date(Date.now() - ms).toISOString();
    const insert = (status: string, endedAt: string | null) => {
      const id = crypto.randomUUID();
      return env.DB.prepare(
        `INSERT INTO session_shares (id, owner_id, account_id, service_name, login_url, token_hash, sealed_credentials, access_type, login_method,
           max_viewers, watermark_enabled, status, current_viewers, duration_minutes, estimated_cost_cents, expires_at, ended_at, created_at, updated_at)
         VALUES (?, ?, 'a', 's', 'https://example.test/', ?, '', 'view_only', 'manual', 1, 1, ?, 0, 15, 1, ?, ?, ?, ?)`,
      )
        .bind(id, owner, crypto.randomUUID(), status, at(0), endedAt, at(0), at(0))
        .run()
        .then(() => id);
    };
    const old = [
      await insert("revoked", at((SESSION_SHARE_RETENTION_DAYS + 1) * day)),
      await insert("failed", at((SESSION_SHARE_RETENTION_DAYS + 2) * day)),
    ];
    const keep = [
      await insert("expired", at((SESSION_SHARE_RETENTION_DAYS - 1) * day)),
      await insert("active", null),
    ];
    expect(await purgeEndedSessionShares(env as never)).toBeGreaterThanOrEqual(2);
    const left = await env.DB.prepare("SELECT id FROM session_shares WHERE owner_id = ?")
      .bind(owner)
      .all<{ id: string }>();
    expect(left.results.map((r) => r.id).sort()).toEqual(keep.sort());
    expect(left.results.some((r) => old.includes(r.id))).toBe(false);
  });
});
