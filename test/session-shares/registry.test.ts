import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { loginTargetOf } from "../../src/domains/session-shares/service";
import { directoryDb } from "../../src/db/client";
import { AppError } from "../../src/lib/errors";
import { TestUser } from "../support/auth";
import { adminFromFreshIp } from "../support/registry";
import { createEntry } from "../support/fixtures";
import { readStatusStream, site, siteAccount, siteStats } from "../support/session-shares";

const row = (id: string) =>
  env.DB.prepare("SELECT status, login_url, failure_reason FROM session_shares WHERE id = ?")
    .bind(id)
    .first<{ status: string; login_url: string; failure_reason: string | null }>();
/** A name of its own for each test: Chromium sends every *.localhost to the loopback login site. */
const freshHost = () => `svc-${crypto.randomUUID().slice(0, 8)}.localhost`;
const handleUrl = (host: string) => `http://${host}:${new URL(site()).port}/login-handle`;
const handlePosts = async () =>
  ((await (await fetch(`${site()}/stats/handle-posts`)).json()) as { posts: number }).posts;

async function share(
  owner: TestUser,
  entry: { url?: string; website: string },
  account: { username: string; password: string },
) {
  const { id: accountId } = await createEntry(owner, { name: "Handle site", ...entry });
  const res = await owner.call("POST", "/api/session-shares", {
    body: { accountId, decryptedUsername: account.username, decryptedPassword: account.password },
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string };
}

describe("the ai_agent login consults the service registry", () => {
  it("an admin override's selectors find a field no default matches, and its login_url is the page for a website-only entry", async () => {
    const host = freshHost();
    const { call } = await adminFromFreshIp();
    const ov = await call("POST", "/api/admin/services/registry", {
      domain: host,
      name: "Handle site",
      login_url: handleUrl(host),
      email_input_selectors: ["input.acct"],
    });
    expect(ov.status).toBe(201);
    const owner = await TestUser.create();
    const account = await siteAccount();
    const created = await share(owner, { website: host }, account);
    expect((await row(created.id))?.login_url).toBe(handleUrl(host));
    const { events } = await readStatusStream(owner, created.id);
    expect(events.at(-1)?.data).toMatchObject({ type: "complete", status: "active" });
    expect(await siteStats(account.username)).toMatchObject({ logins: 1, failed: 0 });
    await owner.call("DELETE", `/api/session-shares/${created.id}`);
  });

  it("without an override the same page fails with its reason, and no half-filled form is submitted", async () => {
    const host = freshHost();
    const owner = await TestUser.create();
    const account = await siteAccount();
    const before = await handlePosts();
    const created = await share(owner, { url: handleUrl(host), website: host }, account);
    const { events } = await readStatusStream(owner, created.id);
    expect(events.at(-1)).toEqual({
      event: "complete",
      data: { type: "complete", status: "failed" },
    });
    expect(await row(created.id)).toMatchObject({
      status: "failed",
      failure_reason: "no username field on the login page",
    });
    expect(await handlePosts()).toBe(before);
    expect(await siteStats(account.username)).toMatchObject({ logins: 0, failed: 0 });
  });

  it("the entry's url wins over the registry's login_url, and a registry login_url still passes the outbound guard", async () => {
    const db = directoryDb(env);
    const host = freshHost();
    const { call } = await adminFromFreshIp();
    const ov = await call("POST", "/api/admin/services/registry", {
      domain: host,
      name: "Private",
      login_url: "http://127.0.0.1:9/login",
      submit_selectors: ["#go"],
    });
    expect(ov.status).toBe(201);
    const own = await loginTargetOf(db, `http://${host}/mine`, host, { allowPrivate: true });
    expect(own).toEqual({
      loginUrl: `http://${host}/mine`,
      selectors: { username: expect.any(Array), submit: ["#go"] },
    });
    await expect(loginTargetOf(db, null, host, { allowPrivate: true })).resolves.toMatchObject({
      loginUrl: "http://127.0.0.1:9/login",
    });
    const err = await loginTargetOf(db, null, host, {
      allowPrivate: false,
      resolve: async () => ["93.184.216.34"],
    }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe("VALIDATION_ERROR");
    // A host the registry does not know keeps the old rule: https://<website>, defaults only.
    await expect(
      loginTargetOf(db, null, "unknown-site.example", { allowPrivate: true }),
    ).resolves.toEqual({
      loginUrl: "https://unknown-site.example/",
      selectors: { username: [], submit: [] },
    });
  });
});
