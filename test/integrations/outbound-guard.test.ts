import { describe, expect, it } from "vitest";
import { AppError } from "../../src/lib/errors";
import {
  assertPublicHost,
  assertPublicUrl,
  isPrivateAddress,
  parseIp,
  parseIPv4,
  parseIPv6,
} from "../../src/lib/outbound-guard";

const closed = { allowPrivate: false };
const refused = async (p: Promise<unknown>, field = "host") => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  expect((err as AppError).status).toBe(400);
  expect((err as AppError).code).toBe("VALIDATION_ERROR");
  expect((err as AppError).details?.[0]?.field).toBe(field);
};

describe("outbound guard: address parsing", () => {
  it("reads every inet_aton spelling of 127.0.0.1", () => {
    for (const s of [
      "127.0.0.1",
      "2130706433",
      "0x7f000001",
      "0X7F000001",
      "0177.0.0.1",
      "127.1",
      "127.0.1",
      "0x7f.1",
      "0177.1",
      "127.0.0.1.",
      "0x7f.0.0.0x1",
    ]) {
      expect([...(parseIPv4(s) ?? [])], s).toEqual([127, 0, 0, 1]);
    }
  });

  it("rejects malformed IPv4 rather than guessing", () => {
    for (const s of [
      "256.0.0.1",
      "1.2.3.4.5",
      "08.1.1.1",
      "4294967296",
      "1.16777216",
      "",
      "a.b.c.d",
      "1..2",
    ])
      expect(parseIPv4(s), s).toBeNull();
  });

  it("reads IPv6 text forms, including embedded IPv4 and zone ids", () => {
    expect([...(parseIPv6("::1") ?? [])]).toEqual([...new Array(15).fill(0), 1]);
    expect(parseIPv6("::ffff:127.0.0.1")).toEqual(parseIPv6("::ffff:7f00:1"));
    expect(parseIPv6("[0:0:0:0:0:ffff:7f00:0001]")).toEqual(parseIPv6("::ffff:7f00:1"));
    expect(parseIPv6("fe80::1%eth0")).toEqual(parseIPv6("fe80::1"));
    expect(parseIPv6("1:2:3:4:5:6:7:8:9")).toBeNull();
    expect(parseIPv6("1::2::3")).toBeNull();
    expect(parseIPv6("::ffff:300.0.0.1")).toBeNull();
  });
});

describe("outbound guard: private ranges (DECISIONS D12)", () => {
  const priv = [
    "127.0.0.1",
    "2130706433",
    "0x7f000001",
    "0177.0.0.1",
    "127.1",
    "0.0.0.0",
    "0",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "100.127.255.255",
    "224.0.0.1",
    "239.255.255.250",
    "255.255.255.255",
    "::1",
    "::",
    "fe80::1",
    "febf::1",
    "fc00::1",
    "fd12:3456::1",
    "ff02::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "0:0:0:0:0:ffff:a00:1",
    "::ffff:169.254.169.254",
    "::127.0.0.1",
    "::ffff:0:7f00:1",
    "64:ff9b::7f00:1",
    "2002:7f00:1::",
    "[::ffff:192.168.0.1]",
  ];
  const pub = [
    "8.8.8.8",
    "1.1.1.1",
    "172.32.0.1",
    "100.128.0.1",
    "93.184.216.34",
    "2606:4700::1111",
    "::ffff:8.8.8.8",
    "2002:808:808::",
    "134744072",
  ];

  it.each(priv)("%s is private", (a) => {
    const ip = parseIp(a);
    expect(ip).not.toBeNull();
    expect(isPrivateAddress(ip!)).toBe(true);
  });

  it.each(pub)("%s is public", (a) => {
    const ip = parseIp(a);
    expect(ip).not.toBeNull();
    expect(isPrivateAddress(ip!)).toBe(false);
  });
});

describe("outbound guard: hosts and URLs", () => {
  it("refuses private literals in any spelling, naming the field", async () => {
    for (const h of [
      "2130706433",
      "0x7f000001",
      "0177.0.0.1",
      "127.1",
      "::ffff:127.0.0.1",
      "[::1]",
      "10.0.0.1",
    ])
      await refused(assertPublicHost(h, "host", closed), "host");
  });

  it("refuses local names without resolving them", async () => {
    let asked = 0;
    const resolve = async () => {
      asked++;
      return ["8.8.8.8"];
    };
    for (const h of [
      "localhost",
      "db.localhost",
      "printer.local",
      "metadata.google.internal",
      "intranet",
    ])
      await refused(assertPublicHost(h, "host", { allowPrivate: false, resolve }));
    expect(asked).toBe(0);
  });

  it("refuses a name when any resolved address is private, or when it does not resolve", async () => {
    await refused(
      assertPublicHost("rebind.example.com", "host", {
        allowPrivate: false,
        resolve: async () => ["93.184.216.34", "127.0.0.1"],
      }),
    );
    await refused(
      assertPublicHost("mapped.example.com", "host", {
        allowPrivate: false,
        resolve: async () => ["::ffff:10.0.0.1"],
      }),
    );
    await refused(
      assertPublicHost("nx.example.com", "host", { allowPrivate: false, resolve: async () => [] }),
    );
    await refused(
      assertPublicHost("err.example.com", "host", {
        allowPrivate: false,
        resolve: async () => {
          throw new Error("down");
        },
      }),
    );
    await refused(assertPublicHost("noresolver.example.com", "host", closed));
    await expect(
      assertPublicHost("imap.example.com", "host", {
        allowPrivate: false,
        resolve: async () => ["93.184.216.34", "2606:2800::1"],
      }),
    ).resolves.toEqual(["93.184.216.34", "2606:2800::1"]);
  });

  it("OUTBOUND_ALLOW_PRIVATE opens addresses but not schemes or malformed hosts", async () => {
    const open = { allowPrivate: true };
    await expect(assertPublicHost("127.0.0.1", "host", open)).resolves.toEqual(["127.0.0.1"]);
    await expect(assertPublicHost("localhost", "host", open)).resolves.toEqual([]);
    await expect(assertPublicUrl("http://127.0.0.1:8080/x", "url", open)).resolves.toBeInstanceOf(
      URL,
    );
    await refused(assertPublicUrl("file:///etc/passwd", "url", open), "url");
    await refused(assertPublicUrl("gopher://127.0.0.1/", "url", open), "url");
    await refused(assertPublicHost("bad host!", "host", open));
  });

  it("checks URLs: scheme, credentials and the numeric host forms the URL parser normalises", async () => {
    for (const u of [
      "http://2130706433/",
      "http://0x7f000001/",
      "http://0177.0.0.1/",
      "http://127.1/",
      "http://[::ffff:127.0.0.1]/",
      "https://169.254.169.254/latest/meta-data",
    ]) {
      await refused(assertPublicUrl(u, "url", closed), "url");
    }
    await refused(assertPublicUrl("ftp://example.com/", "url", closed), "url");
    await refused(
      assertPublicUrl("https://user:pw@example.com/", "url", {
        allowPrivate: false,
        resolve: async () => ["93.184.216.34"],
      }),
      "url",
    );
    await refused(assertPublicUrl("not a url", "url", closed), "url");
    const ok = await assertPublicUrl("https://example.com/reset", "url", {
      allowPrivate: false,
      resolve: async () => ["93.184.216.34"],
    });
    expect(ok.hostname).toBe("example.com");
  });
});
