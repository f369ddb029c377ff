import { SELF } from "../support/worker";
import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import { adminFromFreshIp, uniqueDomain } from "../support/registry";

const path = "/api/registry/passkeys";
type Site = {
  domain: string;
  name: string;
  passkey_support_type: string;
  passkey_setup_url: string | null;
};
type Answer = { sites: Site[]; count: number };

async function sitesFor(user: TestUser, path_ = path): Promise<Answer> {
  const res = await user.call("GET", path_);
  expect(res.status).toBe(200);
  return (await res.json()) as Answer;
}

describe("the registry's passkey sites, as a signed-in person reads them", () => {
  it("a person (not an admin) sees an active override's passkey support and setup address, and nothing else of it", async () => {
    const { call } = await adminFromFreshIp();
    const domain = uniqueDomain();
    const created = await call("POST", "/api/admin/services/registry", {
      domain,
      name: "Keyed Site",
      passkey_support_type: "sign-in-and-sign-up",
      passkey_setup_url: `https://${domain}/settings/passkeys`,
      notes: "admin-only note",
      sender_patterns: ["@mail.secret.example"],
      forgot_password_selectors: ["a.forgot"],
    });
    expect(created.status).toBe(201);

    const user = await TestUser.create();
    const body = await sitesFor(user);
    expect(body.count).toBe(body.sites.length);
    const site = body.sites.find((s) => s.domain === domain);
    expect(site).toEqual({
      domain,
      name: "Keyed Site",
      passkey_support_type: "sign-in-and-sign-up",
      passkey_setup_url: `https://${domain}/settings/passkeys`,
    });
    // No admin field or automation detail reaches a person: not the notes, senders, selectors, authors.
    const text = JSON.stringify(body);
    for (const leak of [
      "admin-only note",
      "mail.secret.example",
      "a.forgot",
      "created_by",
      "updated_by",
      "is_active",
      "notes",
    ])
      expect(text).not.toContain(leak);
    // The list is in domain order: the client matches on it without asking per site.
    const domains = body.sites.map((s) => s.domain);
    expect(domains).toEqual([...domains].sort());
  });

  it("an override without passkey support, an inactive one, and a cleared one are not listed", async () => {
    const { call } = await adminFromFreshIp();
    const plain = uniqueDomain();
    const gone = uniqueDomain();
    const cleared = uniqueDomain();
    expect(
      (
        await call("POST", "/api/admin/services/registry", {
          domain: plain,
          name: "No passkeys",
          passkey_setup_url: `https://${plain}/p`,
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await call("POST", "/api/admin/services/registry", {
          domain: gone,
          name: "Gone",
          passkey_support_type: "sign-in",
        })
      ).status,
    ).toBe(201);
    expect((await call("DELETE", `/api/admin/services/registry/${gone}`)).status).toBe(200);
    expect(
      (
        await call("POST", "/api/admin/services/registry", {
          domain: cleared,
          name: "Cleared",
          passkey_support_type: "mfa-only",
        })
      ).status,
    ).toBe(201);

    const user = await TestUser.create();
    expect(
      (await sitesFor(user)).sites.find((s) => s.domain === cleared)?.passkey_support_type,
    ).toBe("mfa-only");
    expect(
      (
        await call("PATCH", `/api/admin/services/registry/${cleared}`, {
          passkey_support_type: null,
        })
      ).status,
    ).toBe(200);
    const domains = (await sitesFor(user)).sites.map((s) => s.domain);
    for (const d of [plain, gone, cleared]) expect(domains).not.toContain(d);
  });

  it("a setup address that is not https is given as null (the support itself still shows)", async () => {
    const { call } = await adminFromFreshIp();
    const domain = uniqueDomain();
    expect(
      (
        await call("POST", "/api/admin/services/registry", {
          domain,
          name: "Plain http",
          passkey_support_type: "sign-in",
          passkey_setup_url: `http://${domain}/passkeys`,
        })
      ).status,
    ).toBe(201);
    const user = await TestUser.create();
    expect((await sitesFor(user)).sites.find((s) => s.domain === domain)).toEqual({
      domain,
      name: "Plain http",
      passkey_support_type: "sign-in",
      passkey_setup_url: null,
    });
  });

  it("takes no input: a query string changes nothing, and other methods are refused", async () => {
    const user = await TestUser.create();
    const plain = await sitesFor(user);
    const withQuery = await sitesFor(user, `${path}?domain=%3Cscript%3E&limit=-1`);
    expect(withQuery).toEqual(plain);
    const post = await user.call("POST", path, { body: { domain: "x.example" } });
    expect(post.status).toBe(405);
  });

  it("without a session it is 401 UNAUTHORIZED (the user-facing code)", async () => {
    await expectErrorBody(await SELF.fetch(`https://vault.test${path}`), 401, "UNAUTHORIZED");
  });
});
