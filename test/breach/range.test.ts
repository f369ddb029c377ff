import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { RATE_RULES } from "../../src/http/rate-limit-rules";
import { expectErrorBody, TestUser } from "../support/auth";
import { SELF } from "../support/worker";
import { breachPasswords, freshPrefix, rangeRequests } from "../support/pwned-range";

async function sha1Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-1", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("")
    .toUpperCase();
}

const asked = async (prefix: string) =>
  (await rangeRequests()).filter((r) => r.path === `/range/${prefix}`);

describe("GET /api/breach/range/<prefix>", () => {
  it("needs a signed-in caller", async () => {
    const res = await SELF.fetch(`https://vault.test/api/breach/range/${freshPrefix()}`);
    await expectErrorBody(res, 401, "UNAUTHORIZED");
  });

  it("refuses anything but five hex characters, naming the field, and asks the upstream nothing", async () => {
    const user = await TestUser.create();
    const before = (await rangeRequests()).length;
    for (const bad of [
      "ABCD",
      "ABCDEF",
      "ABCDG",
      "21BD1%2F",
      "%20ABCD",
      "21BD1.",
      "zzzzz",
      "21BD12FC9A4",
    ]) {
      const err = await expectErrorBody(
        await user.call("GET", `/api/breach/range/${bad}`),
        400,
        "VALIDATION_ERROR",
      );
      expect(
        (err as { details?: { field: string }[] }).details?.map((d) => d.field),
        bad,
      ).toContain("prefix");
    }
    expect((await rangeRequests()).length).toBe(before);
  });

  it("relays the padded range as text/plain; the upstream sees the five characters only, in upper case", async () => {
    const user = await TestUser.create();
    const password = `correct horse ${crypto.randomUUID()}`;
    const [hash] = await breachPasswords([password], 1234);
    const prefix = hash!.slice(0, 5);
    // Lower case is accepted and travels upper case, so both spellings share one cache entry.
    const res = await user.call("GET", `/api/breach/range/${prefix.toLowerCase()}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    const lines = (await res.text()).split("\r\n");
    expect(lines.length).toBeGreaterThanOrEqual(800);
    for (const line of lines) expect(line).toMatch(/^[0-9A-F]{35}:\d+$/);
    expect(lines).toContain(`${hash!.slice(5)}:1234`);
    expect(lines.filter((l) => l.endsWith(":0")).length).toBeGreaterThan(700);
    const seen = await asked(prefix);
    expect(seen).toEqual([{ path: `/range/${prefix}`, padding: "true", at: expect.any(Number) }]);
    // Nothing more than five characters ever reached the stand-in, from any test of the run.
    for (const r of await rangeRequests()) expect(r.path).toMatch(/^\/range\/[0-9A-F]{5}$/);
    expect(await sha1Hex(password)).toBe(hash);
  });

  it("answers a second request for a prefix from the edge cache, whoever asks", async () => {
    const [alice, bob] = await Promise.all([TestUser.create(), TestUser.create()]);
    const prefix = freshPrefix();
    const first = await (await alice.call("GET", `/api/breach/range/${prefix}`)).text();
    const second = await bob.call("GET", `/api/breach/range/${prefix.toLowerCase()}`);
    expect(second.status).toBe(200);
    expect(await second.text()).toBe(first);
    expect(await asked(prefix)).toHaveLength(1);
  });

  it("has a budget of its own: 600 a minute, then 429 with Retry-After, and the general limit untouched", async () => {
    const user = await TestUser.create();
    const prefix = freshPrefix();
    // 110 through the route: past the general 100 a minute, which this route does not spend.
    for (let batch = 0; batch < 2; batch++) {
      const statuses = await Promise.all(
        Array.from({ length: 55 }, () =>
          user.call("GET", `/api/breach/range/${prefix}`).then((r) => r.status),
        ),
      );
      expect(
        statuses.every((s) => s === 200),
        `batch ${batch}`,
      ).toBe(true);
    }
    expect((await user.call("GET", "/api/identities")).status).toBe(200);
    // The rest of the 600 straight into the caller's limiter object, as 489 more reads would.
    const limiter = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`user:${user.id}`));
    const rule = {
      rule: "breach_range",
      limit: RATE_RULES.breach_range.limit,
      windowMs: RATE_RULES.breach_range.windowSeconds * 1000,
    };
    // One call with the rule 489 times records 489 hits (each check is counted once it passes).
    expect((await limiter.hit(Array.from({ length: 489 }, () => rule))).allowed).toBe(true);
    expect((await user.call("GET", `/api/breach/range/${prefix}`)).status).toBe(200);
    const limited = await user.call("GET", `/api/breach/range/${prefix}`);
    await expectErrorBody(limited, 429, "RATE_LIMITED");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await user.call("GET", "/api/identities")).status).toBe(200);
  });
});
