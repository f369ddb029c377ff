import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { directoryDb } from "../../src/db/client";
import { registryOverrides } from "../../src/db/schema";
import {
  compilePatterns,
  REGISTRY_CACHE_TTL_MS,
  resetRegistryCacheForTests,
  resolveService,
} from "../../src/domains/registry/resolve";
import { RegistryAdminService } from "../../src/domains/registry/service";
import { uniqueDomain } from "../support/registry";

const db = () => directoryDb(env);
const now = () => new Date().toISOString();

afterEach(() => {
  vi.useRealTimers();
});

describe("registry resolution", () => {
  it("uses the built-in entry for a known service and its subdomains", async () => {
    const gh = await resolveService(db(), "https://www.github.com/login");
    expect(gh).toMatchObject({
      domain: "github.com",
      name: "GitHub",
      source: "builtin",
      known: true,
      resetUrl: "https://github.com/password_reset",
    });
    expect(gh.passwordRequirements.minLength).toBe(15);
    expect((await resolveService(db(), "gist.github.com")).domain).toBe("github.com");
  });

  it("falls back to generic defaults for an unknown host", async () => {
    const r = await resolveService(db(), "http://localhost:8123/login");
    expect(r).toMatchObject({
      domain: "localhost",
      source: "generic",
      known: false,
      senderPatterns: ["@localhost"],
    });
    expect(r.emailInputSelectors.length).toBeGreaterThan(0);
  });

  it("merges an override onto the built-in entry: non-null fields win, null fields leave built-ins, invalid regexes dropped", async () => {
    const svc = new RegistryAdminService(db());
    await svc.create("admin-1", {
      domain: "gitlab.com",
      name: "GitLab (custom)",
      reset_url: "https://gitlab.com/custom-reset",
      link_patterns: ["(unclosed", "https://gitlab\\.com/x/\\S+"],
      sender_patterns: null,
    });
    try {
      const r = await resolveService(db(), "gitlab.com");
      expect(r.source).toBe("merged");
      expect(r.name).toBe("GitLab (custom)");
      expect(r.resetUrl).toBe("https://gitlab.com/custom-reset");
      expect(r.loginUrl).toBe("https://gitlab.com/users/sign_in");
      expect(r.senderPatterns).toContain("@gitlab.com");
      expect(r.linkPatterns.map((x) => x.source)).toEqual(["https:\\/\\/gitlab\\.com\\/x\\/\\S+"]);
      expect(r.passwordRequirements.maxLength).toBe(128);
    } finally {
      await svc.remove("admin-1", "gitlab.com");
    }
    expect((await resolveService(db(), "gitlab.com")).source).toBe("builtin");
  });

  it("an override for an unknown domain stands on generic defaults", async () => {
    const domain = uniqueDomain();
    await new RegistryAdminService(db()).create("admin-1", {
      domain,
      name: "Brand new",
      otp_patterns: ["code: (\\d{4})"],
    });
    const r = await resolveService(db(), `https://${domain}/`);
    expect(r).toMatchObject({
      source: "override",
      name: "Brand new",
      senderPatterns: [`@${domain}`],
    });
    expect(r.otpPatterns[0].exec("your code: 4821")?.[1]).toBe("4821");
  });

  it("writes through the service refresh the cache at once; other writes show after 30 s", async () => {
    const domain = uniqueDomain();
    resetRegistryCacheForTests();
    expect((await resolveService(db(), domain)).source).toBe("generic");
    await new RegistryAdminService(db()).create("admin-1", { domain, name: "Now" });
    expect((await resolveService(db(), domain)).name).toBe("Now");

    const other = uniqueDomain();
    await db()
      .insert(registryOverrides)
      .values({
        domain: other,
        name: "Behind the cache",
        isActive: true,
        createdAt: now(),
        updatedAt: now(),
      })
      .run();
    expect((await resolveService(db(), other)).source).toBe("generic");
    vi.useFakeTimers({ now: Date.now() + REGISTRY_CACHE_TTL_MS + 1, toFake: ["Date"] });
    expect((await resolveService(db(), other)).name).toBe("Behind the cache");
  });

  it("inactive overrides do not apply", async () => {
    const domain = uniqueDomain();
    const svc = new RegistryAdminService(db());
    await svc.create("admin-1", { domain, name: "Gone soon" });
    await svc.remove("admin-1", domain);
    expect((await resolveService(db(), domain)).source).toBe("generic");
  });

  it("compilePatterns drops invalid expressions silently", () => {
    expect(compilePatterns(["[", "a+", "(?<x", "\\d{6}"]).map((r) => r.source)).toEqual([
      "a+",
      "\\d{6}",
    ]);
  });
});
