import { SELF } from "../support/worker";
import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import { adminFromFreshIp, uniqueDomain } from "../support/registry";

const base = "/api/admin/services/registry";

describe("admin service registry: security", () => {
  it("a signed-in non-admin gets 403 forbidden on every method, and nothing is written", async () => {
    const user = await TestUser.create();
    const domain = uniqueDomain();
    await expectErrorBody(await user.call("GET", base), 403, "forbidden");
    await expectErrorBody(
      await user.call("POST", base, { body: { domain, name: "x" } }),
      403,
      "forbidden",
    );
    await expectErrorBody(
      await user.call("PATCH", `${base}/${domain}`, { body: { name: "x" } }),
      403,
      "forbidden",
    );
    await expectErrorBody(await user.call("DELETE", `${base}/${domain}`), 403, "forbidden");
    const { call } = await adminFromFreshIp();
    expect(
      ((await (await call("GET", `${base}?search=${domain}`)).json()) as { count: number }).count,
    ).toBe(0);
  });

  it("no token is 401 unauthorized", async () => {
    const res = await SELF.fetch(`https://vault.test${base}`);
    await expectErrorBody(res, 401, "unauthorized");
  });

  it("an admin without a CSRF token is refused", async () => {
    const admin = await TestUser.create({ admin: true });
    await expectErrorBody(
      await admin.call("POST", base, { body: { domain: uniqueDomain(), name: "x" }, csrf: false }),
      403,
      "forbidden",
    );
  });

  it.each([
    ["script tag", "<script>alert(1)</script>"],
    ["javascript url", 'a[href="javascript:alert(1)"]'],
    ["declaration block", "a{background:red}"],
    ["css url()", "a[style*=url(http://evil.test)]"],
    ["css expression", "div[style=expression(alert(1))]"],
    ["event handler", "img[src=x onerror=alert(1)]"],
    ["css escape", "\\3c script"],
    ["template literal", "a`${x}`"],
    ["import", "@import 'x'"],
  ])("selectors with %s are refused in every selector field", async (_label, sel) => {
    const { call } = await adminFromFreshIp();
    for (const field of [
      "forgot_password_selectors",
      "email_input_selectors",
      "submit_selectors",
    ]) {
      const err = await expectErrorBody(
        await call("POST", base, { domain: uniqueDomain(), name: "x", [field]: ["button", sel] }),
        400,
        "validation_failed",
      );
      expect(err.details?.map((d) => d.field)).toContain(`${field}.1`);
    }
  });

  it("legitimate selectors with combinators and attribute values pass", async () => {
    const { call } = await adminFromFreshIp();
    const res = await call("POST", base, {
      domain: uniqueDomain(),
      name: "ok",
      forgot_password_selectors: ["form > a[href*='forgot' i]", "#login ~ .help a:not(.x)"],
      email_input_selectors: ['input[type="email"]'],
      submit_selectors: ["button[data-testid=submit]"],
    });
    expect(res.status).toBe(201);
  });

  it("writes are limited to 10 per 60 s per IP, whoever the admin, with Retry-After", async () => {
    const { ip } = await adminFromFreshIp();
    const admins = [await TestUser.create({ admin: true }), await TestUser.create({ admin: true })];
    for (let i = 0; i < 10; i++) {
      const res = await admins[i % 2].call("POST", base, {
        body: { domain: uniqueDomain(), name: "x" },
        headers: { "cf-connecting-ip": ip },
      });
      expect(res.status).toBe(201);
    }
    const domain = uniqueDomain();
    const limited = await admins[0].call("POST", base, {
      body: { domain, name: "x" },
      headers: { "cf-connecting-ip": ip },
    });
    await expectErrorBody(limited.clone(), 429, "rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    const other = await adminFromFreshIp();
    expect(
      ((await (await other.call("GET", `${base}?search=${domain}`)).json()) as { count: number })
        .count,
    ).toBe(0);
  });

  it("reads are limited to 30 per 60 s per IP", async () => {
    const { call } = await adminFromFreshIp();
    for (let i = 0; i < 30; i++)
      expect((await call("GET", `${base}?active_only=true&search=none`)).status).toBe(200);
    await expectErrorBody(await call("GET", base), 429, "rate_limited");
  });
});
