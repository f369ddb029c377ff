import { describe, expect, it } from "vitest";
import type { PasswordRequirements } from "../../src/kernel/password-rules";
import { requirementsFor } from "../../extension/src/generator";
import { generatePassword as generate, optionsFor } from "../../src/kernel/password-generator";
import { verdict } from "../../extension/src/policy";
import { senderOrigin } from "../../extension/src/sender-origin";

// The extension's pure rules: where it may fill, and the generator against the registry's requirements.
const top = (pageUrl: string) => ({ pageUrl, crossOriginFrame: false });

describe("where the extension fills", () => {
  it("refuses a lookalike host, another site, and a cross-origin frame", () => {
    expect(verdict(top("https://github.com.evil.example/login"), "https://github.com/login")).toBe(
      "refuse-domain",
    );
    expect(verdict(top("https://github-com.example/login"), "github.com")).toBe("refuse-domain");
    expect(verdict(top("https://bob.github.io/"), "https://alice.github.io/")).toBe(
      "refuse-domain",
    );
    expect(
      verdict(
        { pageUrl: "https://github.com/login", crossOriginFrame: true },
        "https://github.com/login",
      ),
    ).toBe("refuse-frame");
    expect(verdict(top("https://gist.github.com/"), "github.com")).toBe("fill");
  });

  it("fills the entry's own host and its subdomains, never a sibling or a parent", () => {
    const entry = "https://accounts.example.com";
    expect(verdict(top("https://accounts.example.com/login"), entry)).toBe("fill");
    expect(verdict(top("https://eu.accounts.example.com/login"), entry)).toBe("fill");
    expect(verdict(top("https://www.accounts.example.com:8443/login"), entry)).toBe("fill");
    expect(verdict(top("https://evil.example.com/login"), entry)).toBe("refuse-domain");
    expect(verdict(top("https://example.com/login"), entry)).toBe("refuse-domain");
    expect(verdict(top("https://xaccounts.example.com/login"), entry)).toBe("refuse-domain");
    expect(verdict(top("https://accounts.example.com.evil.test/"), entry)).toBe("refuse-domain");
  });

  it("refuses an https entry on a plain-http page outright; asks only when nothing vouches for the https", () => {
    expect(verdict(top("http://github.com/login"), "https://github.com/login")).toBe(
      "refuse-insecure",
    );
    // No confirmation turns a sealed https into a fill.
    expect(verdict(top("http://github.com/login"), "https://github.com/login", true)).toBe(
      "refuse-insecure",
    );
    expect(verdict(top("http://github.com/login"), "https://github.com/login", false, false)).toBe(
      "confirm-insecure",
    );
    expect(verdict(top("http://github.com/login"), "https://github.com/login", true, false)).toBe(
      "fill",
    );
    expect(verdict(top("https://github.com/login"), "https://github.com/login")).toBe("fill");
    expect(verdict(top("http://intranet.example/"), "http://intranet.example")).toBe("fill");
    expect(verdict(top("http://intranet.example/"), "intranet.example")).toBe("fill");
  });
});

describe("whose request it is", () => {
  it("takes the page's origin from the browser: refuses an opaque one, none, one not its URL's, or one the content script did not see", () => {
    const url = "https://bank.example/login?x=1";
    expect(senderOrigin({ origin: "https://bank.example", url }, "https://bank.example")).toBe(
      "https://bank.example",
    );
    // A sandboxed frame or a page served with a `sandbox` CSP: the site's URL, no origin of its own.
    expect(senderOrigin({ origin: "null", url }, "null")).toBeNull();
    expect(senderOrigin({ origin: "null", url }, "https://bank.example")).toBeNull();
    expect(senderOrigin({ url }, "https://bank.example")).toBeNull();
    expect(
      senderOrigin({ origin: "https://evil.example", url }, "https://evil.example"),
    ).toBeNull();
    expect(senderOrigin({ origin: "http://bank.example", url }, "http://bank.example")).toBeNull();
    expect(
      senderOrigin({ origin: "https://bank.example", url }, "https://evil.example"),
    ).toBeNull();
    expect(senderOrigin({ origin: "https://bank.example", url }, undefined)).toBeNull();
    expect(
      senderOrigin({ origin: "https://bank.example", url: "about:blank" }, "https://bank.example"),
    ).toBeNull();
    expect(
      senderOrigin(
        { origin: "http://127.0.0.1:8080", url: "http://127.0.0.1:8080/" },
        "http://127.0.0.1:8080",
      ),
    ).toBe("http://127.0.0.1:8080");
  });
});

describe("the generator", () => {
  const generatePassword = (r: PasswordRequirements) => generate(optionsFor(r), r);
  const classes = (p: string) => ({
    upper: /[A-Z]/.test(p),
    lower: /[a-z]/.test(p),
    digit: /\d/.test(p),
    symbol: /[^A-Za-z0-9]/.test(p),
  });

  it("honours a registry service's maximum length and character rules", () => {
    const samsung = requirementsFor("https://account.samsung.com/signin");
    expect(samsung.service).toBe("Samsung");
    expect(samsung.requirements.maxLength).toBe(15);
    for (let i = 0; i < 50; i++) {
      const p = generatePassword(samsung.requirements);
      expect(p.length).toBe(15);
      expect(classes(p)).toEqual({ upper: true, lower: true, digit: true, symbol: true });
    }
    const facebook = requirementsFor("https://www.facebook.com/");
    for (let i = 0; i < 50; i++)
      expect(classes(generatePassword(facebook.requirements)).symbol).toBe(false);
  });

  it("keeps to given symbols, leaves out disallowed characters, and reaches a minimum length", () => {
    for (let i = 0; i < 50; i++) {
      const p = generatePassword({
        minLength: 32,
        maxLength: 40,
        requireSymbols: true,
        specificSymbols: "#!",
        disallowedChars: "aA2",
        requireUppercase: true,
        requireLowercase: true,
        requireNumbers: true,
      });
      expect(p.length).toBe(32);
      expect(p).toMatch(/^[^aA2]+$/);
      expect(p.replace(/[A-Za-z0-9]/g, "")).toMatch(/^[#!]+$/);
    }
  });

  it("uses the registry's defaults for an unknown site", () => {
    const { service, requirements } = requirementsFor("http://login.site.test:8080/login");
    expect(service).toBeNull();
    const p = generatePassword(requirements);
    expect(p.length).toBe(20);
    expect(classes(p)).toEqual({ upper: true, lower: true, digit: true, symbol: true });
  });
});
