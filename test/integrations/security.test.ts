import { env } from "cloudflare:test";
import { SELF } from "../support/worker";
import { afterEach, describe, expect, it, vi } from "vitest";
import { loadConfig } from "../../src/env";
import { guardImapTarget } from "../../src/domains/integrations/imap";
import { IntegrationService } from "../../src/domains/integrations/service";
import { dbFor } from "../../src/db/client";
import { AppError } from "../../src/lib/errors";
import { expectErrorBody, TestUser } from "../support/auth";
import {
  accountReport,
  authorize,
  authUrl,
  callback,
  connectImap,
  connectOAuth,
  imapMailbox,
  integrations,
  providerAccount,
} from "../support/mail-provider";

const addr = (p: string) => `${p}-${crypto.randomUUID().slice(0, 8)}@mail.example.test`;
const reason = (l: URL) => `${l.searchParams.get("status")}:${l.searchParams.get("reason")}`;

afterEach(() => vi.restoreAllMocks());

describe("OAuth state: signed, short-lived, bound to the user, single use", () => {
  it("a state started by another user is refused, and stores nothing for either", async () => {
    const victim = await TestUser.create();
    const attacker = await TestUser.create();
    const back = await authorize(
      await authUrl(attacker, "mailx"),
      await providerAccount("mailx", addr("mailx")),
    );
    // The attacker lures the victim's browser (signed in) into the attacker's callback.
    expect(reason((await callback(back, victim)).location)).toBe("error:invalid_state");
    expect(await integrations(victim)).toEqual([]);
    expect(await integrations(attacker)).toEqual([]);
  });

  it("a replayed state is refused", async () => {
    const user = await TestUser.create();
    const back = await authorize(
      await authUrl(user, "maily"),
      await providerAccount("maily", addr("maily")),
    );
    expect(reason((await callback(back, user)).location)).toBe("connected:null");
    expect(reason((await callback(back, user)).location)).toBe("error:invalid_state");
  });

  it("an expired state is refused", async () => {
    const user = await TestUser.create();
    const back = await authorize(
      await authUrl(user, "mailx"),
      await providerAccount("mailx", addr("mailx")),
    );
    const real = Date.now;
    vi.spyOn(Date, "now").mockImplementation(() => real() + 10 * 60 * 1000 + 5_000);
    expect(reason((await callback(back, user)).location)).toBe("error:expired_state");
    vi.restoreAllMocks();
    expect(await integrations(user)).toEqual([]);
  });

  it("a tampered state (id, expiry, signature or provider) is refused", async () => {
    const user = await TestUser.create();
    const account = await providerAccount("mailx", addr("mailx"));
    const tamper = [
      (s: string) => s.replace(/^./, (c) => (c === "a" ? "b" : "a")),
      (s: string) => s.replace(/\.(\d+)\./, (_m, e: string) => `.${Number(e) + 60_000}.`),
      (s: string) => s.slice(0, -1) + (s.endsWith("A") ? "B" : "A"),
      (s: string) => `${s}x`,
    ];
    for (const t of tamper) {
      const back = await authorize(await authUrl(user, "mailx"), account);
      back.searchParams.set("state", t(back.searchParams.get("state")!));
      expect(reason((await callback(back, user)).location)).toBe("error:invalid_state");
    }
    // A genuine mailx state presented at the maily callback.
    const back = await authorize(await authUrl(user, "mailx"), account);
    const cross = new URL(back.toString().replace("/integrations/mailx/", "/integrations/maily/"));
    expect(reason((await callback(cross, user)).location)).toBe("error:invalid_state");
    expect(await integrations(user)).toEqual([]);
  });

  it("PKCE: a code from another authorization cannot be redeemed with this state's verifier", async () => {
    const user = await TestUser.create();
    const account = await providerAccount("mailx", addr("mailx"));
    const first = await authorize(await authUrl(user, "mailx"), account);
    const second = await authorize(await authUrl(user, "mailx"), account);
    second.searchParams.set("code", first.searchParams.get("code")!);
    expect(reason((await callback(second, user)).location)).toBe("error:token_exchange_failed");
    expect(await integrations(user)).toEqual([]);
  });

  it("PKCE: a challenge swapped on the way to the provider fails the exchange", async () => {
    const user = await TestUser.create();
    const url = await authUrl(user, "codehost");
    url.searchParams.set("code_challenge", "A".repeat(43));
    expect(
      reason(
        (
          await callback(
            await authorize(url, await providerAccount("codehost", addr("codehost"))),
            user,
          )
        ).location,
      ),
    ).toBe("error:token_exchange_failed");
    expect(await integrations(user)).toEqual([]);
  });
});

describe("tokens and passwords never leave sealed", () => {
  it("OAuth tokens are in no response and not in D1 in plaintext", async () => {
    const user = await TestUser.create();
    const account = await providerAccount("mailx", addr("mailx"));
    const { location } = await connectOAuth(user, "mailx", account);
    const seen = [
      location.toString(),
      JSON.stringify(await integrations(user)),
      await (await user.call("POST", "/api/integrations/mailx/refresh")).text(),
    ];
    const { issued } = await accountReport(account);
    expect(issued.length).toBe(4);
    const rows = await env.DB.prepare("SELECT * FROM mail_integrations WHERE user_id = ?")
      .bind(user.id)
      .all();
    const states = await env.DB.prepare("SELECT * FROM oauth_states WHERE user_id = ?")
      .bind(user.id)
      .all();
    const stored = JSON.stringify([rows.results, states.results]);
    for (const t of issued) {
      for (const s of seen) expect(s).not.toContain(t);
      expect(stored).not.toContain(t);
    }
  });

  it("the IMAP password is sealed", async () => {
    const user = await TestUser.create();
    const box = await imapMailbox([]);
    const res = await connectImap(user, box);
    expect(JSON.stringify(res)).not.toContain(box.password);
    const row = await env.DB.prepare("SELECT * FROM mail_integrations WHERE user_id = ?")
      .bind(user.id)
      .first();
    expect(JSON.stringify(row)).not.toContain(box.password);
  });
});

describe("access control", () => {
  it("requires authentication and CSRF", async () => {
    for (const [method, path] of [
      ["GET", "/api/integrations/mailx/auth"],
      ["GET", "/api/mailx/auth"],
      ["POST", "/api/integrations/mailx/refresh"],
      ["POST", "/api/integrations/imap/connect"],
      ["GET", "/api/user-integrations"],
    ]) {
      await expectErrorBody(
        await SELF.fetch(`https://vault.test${path}`, { method }),
        401,
        "UNAUTHORIZED",
      );
    }
    const user = await TestUser.create();
    await expectErrorBody(
      await user.call("POST", "/api/integrations/mailx/disconnect", { csrf: false }),
      403,
      "FORBIDDEN",
    );
  });

  it("one user's integration is invisible to another and untouched by their calls", async () => {
    const owner = await TestUser.create();
    await connectOAuth(owner, "idp", await providerAccount("idp", addr("idp")));
    const other = await TestUser.create();
    expect(await integrations(other)).toEqual([]);
    await expectErrorBody(
      await other.call("POST", "/api/integrations/idp/refresh"),
      404,
      "NOT_FOUND",
    );
    await other.call("POST", "/api/integrations/idp/disconnect");
    expect(await integrations(owner)).toHaveLength(1);
  });
});

describe("outbound guard for IMAP (OUTBOUND_ALLOW_PRIVATE off)", () => {
  const closed = () => ({ ...loadConfig(env), allowPrivateOutbound: false });
  const refusedOn = async (p: Promise<unknown>, field: string) => {
    const err = await p.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(400);
    expect((err as AppError).details?.[0].field).toBe(field);
  };

  it("refuses private addresses in any spelling, and names that resolve to one", async () => {
    for (const host of [
      "127.0.0.1",
      "2130706433",
      "0x7f000001",
      "::1",
      "10.0.0.5",
      "169.254.169.254",
      "localhost",
      "mail.private.test",
    ]) {
      await refusedOn(guardImapTarget(closed(), host, 993), "host");
    }
  });

  it("the connect service refuses before dialling: nothing is stored", async () => {
    const user = await TestUser.create();
    const box = await imapMailbox([]);
    const svc = new IntegrationService(dbFor(env, user.id), env, closed());
    await refusedOn(
      svc.connectImap(user.id, {
        host: "127.0.0.1",
        port: 993,
        username: box.user,
        password: box.password,
        tls: false,
      }),
      "host",
    );
    await refusedOn(
      svc.connectImap(user.id, {
        host: "8.8.8.8",
        port: 2525,
        username: box.user,
        password: box.password,
        tls: false,
      }),
      "port",
    );
    expect(await integrations(user)).toEqual([]);
  });

  it("plaintext IMAP dials the address that passed the guard, not the name again", async () => {
    expect(await guardImapTarget(closed(), "imap.public.test", 143, false)).toBe("93.184.216.34");
    expect(await guardImapTarget(closed(), "imap.public.test", 993, true)).toBe("imap.public.test");
  });
});
