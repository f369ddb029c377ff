import { describe, expect, it } from "vitest";
import { entryVerdict } from "../../extension/src/policy";
import { extraHosts, MAX_HOST_HASHES } from "../../core/hosts/host-hashes";

const top = (pageUrl: string) => ({ pageUrl, crossOriginFrame: false });

describe("an entry's extra addresses", () => {
  it("index the host of every address that names one, once, the main host and regex or never rules left out", () => {
    const urls = [
      { url: "https://second.example.org/login", match: "domain" as const },
      { url: "HTTPS://WWW.Second.Example.org:8443/", match: "host" as const },
      { url: "third.example.net", match: "starts_with" as const },
      { url: "https://fourth.example/x", match: "exact" as const },
      { url: "https://main.example.com/other", match: "domain" as const },
      { url: "^https://re\\.example/", match: "regex" as const },
      { url: "https://never.example/", match: "never" as const },
    ];
    expect(extraHosts(urls, "https://main.example.com")).toEqual([
      "second.example.org",
      "third.example.net",
      "fourth.example",
    ]);
    expect(extraHosts(undefined, "main.example.com")).toEqual([]);
    const many = Array.from({ length: 30 }, (_, i) => ({
      url: `s${i}.example`,
      match: "domain" as const,
    }));
    expect(extraHosts(many, "")).toHaveLength(MAX_HOST_HASHES);
  });

  it("fill on a page any address admits under its rule, never on a lookalike", () => {
    const main = "https://main.example.com";
    const extra = [{ url: "https://second.example.org/login", match: "domain" }];
    expect(entryVerdict(top("https://second.example.org/signin"), main, extra)).toBe("fill");
    expect(entryVerdict(top("https://eu.second.example.org/"), main, extra)).toBe("fill");
    expect(entryVerdict(top("https://main.example.com/"), main, extra)).toBe("fill");
    expect(entryVerdict(top("https://second.example.org.evil.example/"), main, extra)).toBe(
      "refuse-domain",
    );
    expect(entryVerdict(top("https://example.org/"), main, extra)).toBe("refuse-domain");
    expect(
      entryVerdict({ pageUrl: "https://second.example.org/", crossOriginFrame: true }, main, extra),
    ).toBe("refuse-frame");
  });

  it("hold each rule: host only that host, starts_with and exact the URL, regex and never nothing", () => {
    const v = (page: string, url: string, match: string) =>
      entryVerdict(top(page), null, [{ url, match }]);
    expect(v("https://a.example/", "https://a.example/", "host")).toBe("fill");
    expect(v("https://sub.a.example/", "https://a.example/", "host")).toBe("refuse-domain");
    expect(v("https://a.example/app/login", "https://a.example/app", "starts_with")).toBe("fill");
    expect(v("https://a.example/other", "https://a.example/app", "starts_with")).toBe(
      "refuse-domain",
    );
    expect(v("https://a.example/login", "https://a.example/login", "exact")).toBe("fill");
    expect(v("https://a.example/login?x=1", "https://a.example/login", "exact")).toBe(
      "refuse-domain",
    );
    expect(v("https://a.example/", ".*", "regex")).toBe("refuse-domain");
    expect(v("https://a.example/", "https://a.example/", "never")).toBe("refuse-domain");
  });

  it("refuse an https address on a plain-http page (sealed in the entry, so no confirmation), unless another address fills outright", () => {
    expect(
      entryVerdict(top("http://second.example.org/"), null, [
        { url: "https://second.example.org/", match: "domain" },
      ]),
    ).toBe("refuse-insecure");
    expect(
      entryVerdict(
        top("http://second.example.org/"),
        null,
        [{ url: "https://second.example.org/", match: "domain" }],
        true,
      ),
    ).toBe("refuse-insecure");
    // An unvouched main address may still be confirmed; its sealed extra https address may not.
    expect(
      entryVerdict(
        top("http://second.example.org/"),
        "https://second.example.org",
        [{ url: "https://second.example.org/", match: "domain" }],
        false,
        false,
      ),
    ).toBe("confirm-insecure");
    expect(
      entryVerdict(top("http://second.example.org/"), "https://main.example", [
        { url: "https://second.example.org/", match: "domain" },
        { url: "http://second.example.org/", match: "domain" },
      ]),
    ).toBe("fill");
  });
});
