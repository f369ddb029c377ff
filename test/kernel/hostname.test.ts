import { describe, expect, it } from "vitest";
import {
  candidateHosts,
  entryHost,
  hostCovers,
  hostnameOf,
  normalizeHost,
  websiteHost,
} from "../../src/kernel/hostname";
import { isPublicSuffix, registrableDomain } from "../../src/kernel/site";

describe("host rules", () => {
  it("normalises the host entries are matched under: lower case, no www., port or trailing dot", () => {
    expect(normalizeHost("https://WWW.Example.COM:8443/login?x=1")).toBe("example.com");
    expect(normalizeHost(" example.com. ")).toBe("example.com");
    expect(normalizeHost("ftp://files.example.org/a")).toBe("files.example.org");
    for (const none of [null, undefined, "", "   ", "https://", "http://exa mple.com"])
      expect(normalizeHost(none), String(none)).toBeNull();
  });

  it("names a site as written, www. kept, for people and other services", () => {
    expect(hostnameOf("https://www.Example.com:8443/x")).toBe("www.example.com");
    expect(hostnameOf("news.example.org/path")).toBe("news.example.org");
    expect(hostnameOf("")).toBeNull();
    expect(hostnameOf("http://exa mple.com")).toBeNull();
  });

  it("takes as a website only a host with a dot, or localhost", () => {
    expect(websiteHost("https://www.example.com/login")).toBe("example.com");
    expect(websiteHost("http://localhost:8787/")).toBe("localhost");
    expect(websiteHost("intranet")).toBeNull();
    expect(websiteHost(null)).toBeNull();
  });

  it("matches an entry under its website's host, else its URL's", () => {
    expect(entryHost("www.example.com", "https://other.example/login")).toBe("example.com");
    expect(entryHost("", "https://other.example/login")).toBe("other.example");
    expect(entryHost(null, null)).toBeNull();
  });

  it("covers the host itself and its subdomains, label-wise", () => {
    expect(hostCovers("github.com", "github.com")).toBe(true);
    expect(hostCovers("github.com", "gist.github.com")).toBe(true);
    expect(hostCovers("github.com", "xgithub.com")).toBe(false);
    expect(hostCovers("accounts.example.com", "example.com")).toBe(false);
    expect(hostCovers("github.com", "github.com.evil.example")).toBe(false);
  });

  it("offers an entry under the host and each parent down to two labels", () => {
    expect(candidateHosts("a.b.example.com")).toEqual([
      "a.b.example.com",
      "b.example.com",
      "example.com",
    ]);
    expect(candidateHosts("192.0.2.1")).toEqual(["192.0.2.1"]);
    expect(candidateHosts("localhost")).toEqual(["localhost"]);
  });
});

describe("host rules from the Public Suffix List", () => {
  it("compares registrable domains from the Public Suffix List", () => {
    expect(registrableDomain("https://login.github.com/session")).toBe("github.com");
    expect(registrableDomain("github.com.evil.example")).toBe("evil.example");
    expect(registrableDomain("https://shop.example.co.uk/")).toBe("example.co.uk");
    expect(registrableDomain("https://alice.github.io/")).toBe("alice.github.io");
    expect(registrableDomain("http://127.0.0.1:8080/login")).toBe("127.0.0.1");
  });

  it("knows public suffixes, private ones included", () => {
    for (const suffix of ["com", "co.uk", "github.io"]) expect(isPublicSuffix(suffix)).toBe(true);
    for (const site of ["example.com", "alice.github.io"]) expect(isPublicSuffix(site)).toBe(false);
  });
});
