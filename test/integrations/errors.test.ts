import { env } from "cloudflare:test";
import { SELF } from "../support/worker";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/env";
import { providerConfig } from "../../src/domains/integrations/providers";
import { AppError } from "../../src/lib/errors";
import { expectErrorBody, TestUser } from "../support/auth";
import {
  accountReport,
  authorize,
  authUrl,
  callback,
  connectOAuth,
  discoveryImap,
  imapMailbox,
  integrations,
  patchAccount,
  providerAccount,
} from "../support/mail-provider";

const addr = (p: string) => `${p}-${crypto.randomUUID().slice(0, 8)}@mail.example.test`;

type Notification = {
  type: string;
  title: string;
  body: string;
  metadata?: Record<string, unknown>;
};
async function notifications(user: TestUser): Promise<Notification[]> {
  const res = await user.call("GET", "/api/notifications");
  const body = (await res.json()) as { notifications?: Notification[] } | Notification[];
  return Array.isArray(body) ? body : (body.notifications ?? []);
}

describe("OAuth integrations: errors", () => {
  it("a failed refresh marks the integration disconnected and tells the user to reconnect", async () => {
    const user = await TestUser.create();
    const email = addr("mailx");
    const account = await providerAccount("mailx", email);
    await connectOAuth(user, "mailx", account);
    await patchAccount(account, { refresh: "invalid_grant" });
    await expectErrorBody(
      await user.call("POST", "/api/integrations/mailx/refresh"),
      422,
      "UNPROCESSABLE",
    );
    expect((await integrations(user))[0]).toMatchObject({
      provider: "mailx",
      email,
      status: "disconnected",
    });
    const notes = (await notifications(user)).filter((n) => n.type === "integration_disconnected");
    expect(notes).toHaveLength(1);
    expect(notes[0].body).toContain(email);
    expect(notes[0].title).toMatch(/reconnect/i);
    // Disconnected stays disconnected: no further refresh is attempted at the provider.
    await expectErrorBody(
      await user.call("POST", "/api/integrations/mailx/refresh"),
      422,
      "UNPROCESSABLE",
    );
    expect(
      (await accountReport(account)).tokenRequests.filter((t) => t === "refresh_token"),
    ).toHaveLength(1);
    expect(
      (await notifications(user)).filter((n) => n.type === "integration_disconnected"),
    ).toHaveLength(1);
  });

  it("a transient provider failure (5xx) is 503 and leaves the integration active", async () => {
    const user = await TestUser.create();
    const account = await providerAccount("maily", addr("maily"));
    await connectOAuth(user, "maily", account);
    await patchAccount(account, { refresh: "server_error" });
    await expectErrorBody(
      await user.call("POST", "/api/integrations/maily/refresh"),
      503,
      "SERVICE_UNAVAILABLE",
    );
    expect((await integrations(user))[0].status).toBe("active");
    expect(
      (await notifications(user)).filter((n) => n.type === "integration_disconnected"),
    ).toHaveLength(0);
  });

  it("refresh and disconnect of a provider that is not connected", async () => {
    const user = await TestUser.create();
    await expectErrorBody(
      await user.call("POST", "/api/integrations/idp/refresh"),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(await user.call("POST", "/api/mailx/refresh"), 404, "NOT_FOUND");
    expect(await (await user.call("POST", "/api/integrations/idp/disconnect")).json()).toEqual({
      success: true,
    });
  });

  it("an unknown provider is refused", async () => {
    const user = await TestUser.create();
    const err = await expectErrorBody(
      await user.call("GET", "/api/integrations/pop3/auth"),
      400,
      "VALIDATION_ERROR",
    );
    expect(err.details?.[0].field).toBe("provider");
  });

  it("a provider without configuration is 503", () => {
    const config = { ...loadConfig(env), MAILY_CLIENT_ID: undefined };
    const err = (() => {
      try {
        providerConfig(config, "maily");
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(503);
  });

  it("consent refused at the provider: error redirect, nothing stored", async () => {
    const user = await TestUser.create();
    const account = await providerAccount("mailx", addr("mailx"));
    const { location } = await callback(
      await authorize(await authUrl(user, "mailx"), account, { test_deny: "1" }),
      user,
    );
    expect(Object.fromEntries(location.searchParams)).toEqual({
      integration: "mailx",
      status: "error",
      reason: "access_denied",
    });
    expect(await integrations(user)).toEqual([]);
  });

  it("a callback without state or code is an error redirect", async () => {
    const user = await TestUser.create();
    const noState = await callback("https://vault.test/api/integrations/mailx/callback?code=abc");
    expect(noState.status).toBe(302);
    expect(noState.location.searchParams.get("reason")).toBe("invalid_state");
    const back = await authorize(
      await authUrl(user, "mailx"),
      await providerAccount("mailx", addr("mailx")),
    );
    back.searchParams.delete("code");
    expect((await callback(back, user)).location.searchParams.get("reason")).toBe("missing_code");
    expect(await integrations(user)).toEqual([]);
  });
});

describe("callback rate limit", () => {
  it("is an authentication endpoint: 10 per 15 minutes per client address", async () => {
    const ip = "203.0.113.77";
    for (let i = 0; i < 10; i++)
      expect(
        (
          await callback(
            "https://vault.test/api/integrations/mailx/callback?state=x",
            undefined,
            ip,
          )
        ).status,
      ).toBe(302);
    const res = await SELF.fetch("https://vault.test/api/integrations/mailx/callback?state=x", {
      redirect: "manual",
      headers: { "cf-connecting-ip": ip },
    });
    await expectErrorBody(res.clone(), 429, "RATE_LIMITED");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("IMAP connect: errors", () => {
  const body = (over: Record<string, unknown>) => ({
    host: "127.0.0.1",
    port: discoveryImap.port,
    username: "x@example.test",
    password: "p",
    tls: false,
    ...over,
  });

  it("a wrong password is 422 and stores nothing", async () => {
    const user = await TestUser.create();
    const box = await imapMailbox([]);
    const err = await expectErrorBody(
      await user.call("POST", "/api/integrations/imap/connect", {
        body: body({ username: box.user, password: `${box.password}x` }),
      }),
      422,
      "UNPROCESSABLE",
    );
    expect(err.error).toMatch(/login failed/i);
    expect(err.error).not.toContain(box.password);
    expect(await integrations(user)).toEqual([]);
  });

  it("nothing listening is 422 (could not connect)", async () => {
    const user = await TestUser.create();
    const err = await expectErrorBody(
      await user.call("POST", "/api/integrations/imap/connect", { body: body({ port: 143 }) }),
      422,
      "UNPROCESSABLE",
    );
    expect(err.error).toMatch(/could not connect/i);
  });

  it("a port that is not an IMAP port is 400 on port", async () => {
    const user = await TestUser.create();
    const err = await expectErrorBody(
      await user.call("POST", "/api/integrations/imap/connect", { body: body({ port: 25 }) }),
      400,
      "VALIDATION_ERROR",
    );
    expect(err.details?.[0].field).toBe("port");
  });

  it("validates the body", async () => {
    const user = await TestUser.create();
    for (const b of [
      body({ tls: undefined }),
      body({ port: "993" }),
      body({ username: "a\r\nA2 LOGOUT" }),
      body({ password: "p\0" }),
      body({ host: "" }),
    ]) {
      await expectErrorBody(
        await user.call("POST", "/api/integrations/imap/connect", { body: b }),
        400,
        "VALIDATION_ERROR",
      );
    }
  });
});
