import { SELF } from "../support/worker";
import { describe, expect, it } from "vitest";
import { issueCsrfToken } from "../../src/http/csrf";
import { expectErrorBody, signToken, TestUser } from "../support/auth";
import { env } from "cloudflare:test";

type Operation = { security?: unknown[]; "x-csrf-exempt"?: boolean };
type Doc = { paths: Record<string, Record<string, Operation>> };

const doc = (await (await SELF.fetch("https://vault.test/api/openapi.json")).json()) as Doc;
const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
  Object.entries(ops).map(([method, op]) => ({
    method: method.toUpperCase(),
    path: path.replace(/\{[^}]+\}/g, "probe-id"),
    op,
  })),
);
const protectedOps = operations.filter((o) => (o.op.security ?? []).length > 0);
const csrfOps = protectedOps.filter((o) => o.method !== "GET" && !o.op["x-csrf-exempt"]);

/** Spec "Errors": the admin registry and notifications answer with lower-case codes. */
const codeFor = (path: string, code: string) =>
  /^\/api\/(notifications|admin\/services\/registry)(\/|$)/.test(path) ? code.toLowerCase() : code;

const call = (method: string, path: string, headers: Record<string, string> = {}) =>
  SELF.fetch(`https://vault.test${path}`, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: method === "GET" ? undefined : "{}",
  });

describe("every protected route", () => {
  it("the OpenAPI document lists the protected routes", () => {
    expect(protectedOps.length).toBeGreaterThanOrEqual(6);
  });

  const badTokens: [string, () => Promise<Record<string, string>>][] = [
    ["no token", async () => ({})],
    ["a garbage token", async () => ({ authorization: "Bearer not.a.jwt" })],
    ["a non-Bearer scheme", async () => ({ authorization: `Basic ${btoa("a:b")}` })],
    [
      "an expired token",
      async () => ({ authorization: `Bearer ${await signToken({ expiresIn: -60 })}` }),
    ],
    [
      "a token signed by an unknown key",
      async () => ({ authorization: `Bearer ${await signToken({ foreignKey: true })}` }),
    ],
    [
      "a token from another issuer",
      async () => ({ authorization: `Bearer ${await signToken({ issuer: "https://evil.test" })}` }),
    ],
    [
      "a token for another audience",
      async () => ({ authorization: `Bearer ${await signToken({ audience: "other-app" })}` }),
    ],
    [
      "a token without sub",
      async () => ({ authorization: `Bearer ${await signToken({ sub: null })}` }),
    ],
    ["a bad cookie", async () => ({ cookie: "__Host-access_token=garbage" })],
  ];

  for (const [label, headers] of badTokens) {
    it(`answers 401 UNAUTHORIZED to ${label}`, async () => {
      const h = await headers();
      await Promise.all(
        protectedOps.map(async (o) => {
          const res = await call(o.method, o.path, h);
          try {
            await expectErrorBody(res, 401, codeFor(o.path, "UNAUTHORIZED"));
          } catch (e) {
            throw new Error(`${o.method} ${o.path}: ${(e as Error).message}`);
          }
          expect(res.headers.get("api-version")).toBe("1");
        }),
      );
    }, 120_000);
  }

  it("answers 403 FORBIDDEN to a mutating call without, with a foreign or with an expired CSRF token", async () => {
    const user = await TestUser.create();
    const other = await TestUser.create();
    const expired = await issueCsrfToken(
      env.CSRF_SECRET as string,
      user.id,
      Date.now() - 13 * 60 * 60 * 1000,
    );
    const variants: Record<string, string>[] = [
      {},
      { "x-csrf-token": await other.csrf() },
      { "x-csrf-token": expired.token },
      { "x-csrf-token": "garbage" },
    ];
    await Promise.all(
      csrfOps.flatMap((o) =>
        variants.map(async (v) => {
          const res = await call(o.method, o.path, { authorization: `Bearer ${user.token}`, ...v });
          try {
            await expectErrorBody(res, 403, codeFor(o.path, "FORBIDDEN"));
          } catch (e) {
            throw new Error(
              `${o.method} ${o.path} ${JSON.stringify(Object.keys(v))}: ${(e as Error).message}`,
            );
          }
        }),
      ),
    );
  }, 120_000);
});

describe("authentication", () => {
  it("accepts RS256 and ES256 tokens, and the token in the __Host-access_token cookie (https)", async () => {
    for (const alg of ["RS256", "ES256"] as const) {
      const token = await signToken({ alg });
      const res = await SELF.fetch("https://vault.test/api/auth/csrf-token", {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.status).toBe(200);
    }
    const cookieRes = await SELF.fetch("https://vault.test/api/auth/csrf-token", {
      headers: { cookie: `__Host-access_token=${await signToken()}` },
    });
    expect(cookieRes.status).toBe(200);
    expect(((await cookieRes.json()) as { csrfToken: string }).csrfToken).toMatch(/^\d+\./);
  });

  it("a CSRF token from the cookie session works for that user's mutations", async () => {
    const token = await signToken();
    const headers = { cookie: `__Host-access_token=${token}` };
    const { csrfToken } = (await (
      await SELF.fetch("https://vault.test/api/auth/csrf-token", { headers })
    ).json()) as { csrfToken: string };
    const res = await SELF.fetch("https://vault.test/api/passwords/none", {
      method: "DELETE",
      headers: { ...headers, "x-csrf-token": csrfToken },
    });
    await expectErrorBody(res, 404, "NOT_FOUND");
  });
});
