import { env } from "cloudflare:test";
import { SELF } from "../support/worker";
import { Hono } from "hono";
import { describe, expect, it, vi } from "vitest";
import { buildApp } from "../../src/app";
import { handleError } from "../../src/http/errors";
import { expectErrorBody, TestUser } from "../support/auth";

describe("errors and protocol", () => {
  it("an unknown /api route is 404 NOT_FOUND with the standard body and API-Version", async () => {
    const res = await SELF.fetch("https://vault.test/api/does-not-exist");
    expect(res.headers.get("api-version")).toBe("1");
    expect(await expectErrorBody(res, 404, "NOT_FOUND")).toEqual({
      error: "Not found",
      code: "NOT_FOUND",
      status: 404,
    });
  });

  it("a known path under another method is 405 with Allow", async () => {
    const res = await SELF.fetch("https://vault.test/api/auth/csrf-token", { method: "DELETE" });
    await expectErrorBody(res, 405, "METHOD_NOT_ALLOWED");
    expect(res.headers.get("allow")).toBe("GET");
    const put = await SELF.fetch("https://vault.test/api/passwords/abc", { method: "PUT" });
    await expectErrorBody(put, 405, "METHOD_NOT_ALLOWED");
    expect(put.headers.get("allow")?.split(", ").sort()).toEqual(["DELETE", "PATCH"]);
  });

  it("every success carries API-Version: 1 too", async () => {
    const user = await TestUser.create();
    const res = await user.call("GET", "/api/passwords");
    expect(res.status).toBe(200);
    expect(res.headers.get("api-version")).toBe("1");
  });

  it("the admin registry and notifications families speak lower-case codes", async () => {
    const res = await SELF.fetch("https://vault.test/api/notifications/unknown/path");
    const body = (await res.json()) as { code: string; status: number };
    expect(res.status).toBe(404);
    expect(body.code).toBe("not_found");
    const admin = await SELF.fetch("https://vault.test/api/admin/services/registry/x/y/z");
    expect(((await admin.json()) as { code: string }).code).toBe("not_found");
  });

  it("a 500 hides internals and logs no secret", async () => {
    const app = new Hono();
    app.get("/boom", () => {
      throw new Error("D1_ERROR: no such table: secret_table at 10.0.0.5");
    });
    app.onError(handleError);
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await app.request("/boom");
    log.mockRestore();
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({
      error: "Internal server error",
      code: "INTERNAL_ERROR",
      status: 500,
    });
  });

  it("a missing required secret fails closed: 500 on every request and a log line naming it", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const { CSRF_SECRET: _omit, ...withoutCsrf } = env;
    const app = buildApp();
    const res = await app.request("/api/health", {}, { ...withoutCsrf });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({
      error: "Service misconfigured",
      code: "INTERNAL_ERROR",
      status: 500,
    });
    const logged = log.mock.calls.map((c) => c.join(" ")).join("\n");
    expect(logged).toContain("CSRF_SECRET");
    const badKey = await app.request(
      "/api/health",
      {},
      { ...env, DATA_ENCRYPTION_KEY: "c2hvcnQ=" },
    );
    expect(badKey.status).toBe(500);
    expect(log.mock.calls.map((c) => c.join(" ")).join("\n")).toContain("DATA_ENCRYPTION_KEY");
    expect(log.mock.calls.map((c) => c.join(" ")).join("\n")).not.toContain("c2hvcnQ=");
    const { IDP_JWKS: _j, ...withoutJwks } = env;
    expect((await app.request("/api/health", {}, { ...withoutJwks })).status).toBe(500);
    log.mockRestore();
  });
});

describe("CORS", () => {
  const preflight = (origin: string) =>
    SELF.fetch("https://vault.test/api/passwords", {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, x-csrf-token",
      },
    });

  it("allows the app origin and configured extension origins with credentials", async () => {
    for (const origin of ["https://app.test", "chrome-extension://abcdefghijklmnop"]) {
      const res = await preflight(origin);
      expect(res.status).toBe(204);
      expect(res.headers.get("access-control-allow-origin")).toBe(origin);
      expect(res.headers.get("access-control-allow-credentials")).toBe("true");
      expect(res.headers.get("access-control-allow-headers")).toContain("x-csrf-token");
      // The extension revalidates its match lookups (core/api/revalidate.ts).
      expect(res.headers.get("access-control-allow-headers")).toContain("if-none-match");
    }
  });

  it("does not allow other origins", async () => {
    const res = await preflight("https://evil.test");
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("OpenAPI", () => {
  it("documents every password route from the zod schemas", async () => {
    const res = await SELF.fetch("https://vault.test/api/openapi.json");
    expect(res.status).toBe(200);
    const doc = (await res.json()) as {
      openapi: string;
      paths: Record<string, Record<string, any>>;
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths["/api/passwords"]).sort()).toEqual(["get", "post"]);
    expect(Object.keys(doc.paths["/api/passwords/{id}"]).sort()).toEqual(["delete", "patch"]);
    expect(doc.paths["/api/passwords/{id}/reveal"].post).toBeDefined();
    expect(doc.paths["/api/passwords/match"].get.parameters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: "url", in: "query", required: true }),
      ]),
    );
    const create = doc.paths["/api/passwords"].post.requestBody.content["application/json"].schema;
    expect(create.required).toEqual(
      expect.arrayContaining([
        "name",
        "wrapped_item_key",
        "encrypted_data",
        "name_hash",
        "username_hash",
      ]),
    );
    expect(
      doc.paths["/api/passwords"].post.responses["201"].content["application/json"].schema
        .properties.data,
    ).toBeDefined();
    expect(doc.paths["/api/auth/csrf-token"].get).toBeDefined();
  });
});
