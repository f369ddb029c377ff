import { connect } from "cloudflare:sockets";
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { directoryDb } from "../../src/db/client";
import { discoverSignIn } from "../../src/domains/reset/sign-in-discovery";
import { loadConfig } from "../../src/env";
import type { Dial } from "../../src/lib/pinned-http";
import { expectErrorBody, TestUser } from "../support/auth";

// Sign-in discovery makes the server fetch a URL the caller chose: it has its own per-user budget,
// and each hop's name is resolved once and the request sent to the address that passed the guard,
// so a name whose next answer is private (DNS rebinding) is never asked again.
const site = env.TEST_RESET_SITE as string;
const sitePort = Number(new URL(site).port);

/** A resolver whose answers change after the first: public, then loopback (the rebinding attack). */
function rebindingResolver(names: Record<string, string[][]>) {
  const asked: string[] = [];
  const resolve = async (host: string) => {
    asked.push(host);
    const answers = names[host] ?? [];
    return answers[Math.min(asked.filter((h) => h === host).length - 1, answers.length - 1)] ?? [];
  };
  return { resolve, asked };
}

/** Records the address each request was sent to, and carries it to the local site (the public address is not reachable here). */
function recordingDial() {
  const dialled: string[] = [];
  const dial: Dial = (address, port) => {
    dialled.push(`${address}:${port}`);
    return connect(
      { hostname: "127.0.0.1", port: sitePort },
      { secureTransport: "off", allowHalfOpen: false },
    );
  };
  return { dial, dialled };
}

const strict = () => ({ ...loadConfig(env), allowPrivateOutbound: false });

describe("sign-in discovery: pinned addresses", () => {
  it("the request goes to the address the guard passed; the name is not resolved again", async () => {
    const { resolve, asked } = rebindingResolver({
      "shop.example": [["93.184.216.34"], ["127.0.0.1"]],
    });
    const { dial, dialled } = recordingDial();
    const out = await discoverSignIn(
      strict(),
      directoryDb(env),
      `http://shop.example:${sitePort}/login`,
      { resolve, dial },
    );
    expect(out.methods).toEqual(["email_password", "passkey", "google"]);
    expect(asked).toEqual(["shop.example"]);
    expect(dialled).toEqual([`93.184.216.34:${sitePort}`]);
  });

  it("each redirect hop is resolved and checked once; a hop whose name answers private is refused", async () => {
    const { resolve, asked } = rebindingResolver({
      "shop.example": [["93.184.216.34"]],
      "inside.example": [["10.0.0.7"]],
    });
    const { dial, dialled } = recordingDial();
    const to = encodeURIComponent(`http://inside.example:${sitePort}/login`);
    await expect(
      discoverSignIn(
        strict(),
        directoryDb(env),
        `http://shop.example:${sitePort}/redirect?to=${to}`,
        { resolve, dial },
      ),
    ).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
      details: [{ field: "url" }],
    });
    expect(asked).toEqual(["shop.example", "inside.example"]);
    expect(dialled).toEqual([`93.184.216.34:${sitePort}`]);
  });

  it("a name with one public and one private answer is refused before any connection", async () => {
    const { resolve } = rebindingResolver({ "mixed.example": [["93.184.216.34", "192.168.1.1"]] });
    const { dial, dialled } = recordingDial();
    await expect(
      discoverSignIn(strict(), directoryDb(env), `http://mixed.example:${sitePort}/login`, {
        resolve,
        dial,
      }),
    ).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
    expect(dialled).toEqual([]);
  });

  it("an address literal is sent over the pinned socket end to end (real HTTP/1.1 from the local site)", async () => {
    const user = await TestUser.create();
    const literal = site.replace("localhost", "127.0.0.1");
    const res = await user.call("POST", "/api/sign-in-discovery", {
      body: { url: `${literal}/redirect?to=/plain-login` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      methods: ["email_password"],
      resetUrl: `${literal}/help/reset-password`,
      signupUrl: null,
    });
    const login = await user.call("POST", "/api/sign-in-discovery", {
      body: { url: `${literal}/login` },
    });
    expect(((await login.json()) as { methods: string[] }).methods).toEqual([
      "email_password",
      "passkey",
      "google",
    ]);
  });
});

describe("sign-in discovery: its own per-user limit", () => {
  it("20 discoveries an hour per user; the 21st is 429 with Retry-After and fetches nothing; another user is unaffected", async () => {
    const user = await TestUser.create();
    for (let i = 0; i < 20; i++) {
      expect(
        (await user.call("POST", "/api/sign-in-discovery", { body: { url: `${site}/not-html` } }))
          .status,
      ).toBe(422);
    }
    const refused = await user.call("POST", "/api/sign-in-discovery", {
      body: { url: `${site}/login` },
    });
    await expectErrorBody(refused, 429, "RATE_LIMITED");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    const other = await TestUser.create();
    expect(
      (await other.call("POST", "/api/sign-in-discovery", { body: { url: `${site}/login` } }))
        .status,
    ).toBe(200);
  });
});
