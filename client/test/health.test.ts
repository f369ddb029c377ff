import { beforeAll, describe, expect, it } from "vitest";
import { BreachChecker, parseRange, sha1Hex } from "../../core/health/breach";
import {
  checkHealth,
  findReuse,
  hostMatches,
  reuseKey,
  type HealthItem,
  type StrengthCheck,
} from "../src/health/detectors";
import { isLongRandom, longWords, type LongWords } from "../src/health/random-path";
import { strengthTools } from "../src/health/strength";

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.parse("2026-11-27T12:00:00Z");
const STRONG = "vN8#qL2!zR5@wT9$";

function item(id: string, password: string, over: Partial<HealthItem> = {}): HealthItem {
  return {
    id,
    name: `Entry ${id}`,
    host: `${id}.example`,
    username: `${id}@example.test`,
    password,
    totp: "",
    changedAt: new Date(NOW - DAY).toISOString(),
    createdAt: new Date(NOW - 2 * DAY).toISOString(),
    ...over,
  };
}

/** A stand-in for the worker's relay: the real range format, padding rows of count 0 included. */
function rangeSource(breached: Record<string, number>, padWith: string[] = []) {
  const asked: string[] = [];
  const source = async (prefix: string) => {
    asked.push(prefix);
    const rows: string[] = [];
    for (const [hash, count] of Object.entries(breached))
      if (hash.startsWith(prefix)) rows.push(`${hash.slice(5)}:${count}`);
    for (const hash of padWith) if (hash.startsWith(prefix)) rows.push(`${hash.slice(5)}:0`);
    for (let i = 0; i < 20; i++) rows.push(`${(await sha1Hex(`pad ${prefix} ${i}`)).slice(5)}:0`);
    return rows.join("\r\n");
  };
  return { source, asked };
}

let check: StrengthCheck;
let words: LongWords;
// The estimator's dictionaries take seconds to load on a busy machine: once, before the tests.
beforeAll(async () => {
  const { checker, dictionary, graphs } = await strengthTools();
  check = (p, inputs) => checker.check(p, inputs);
  words = longWords(dictionary, graphs);
});
const strength = async () => check;

describe("breach range (k-anonymity)", () => {
  it("SHA-1 of known samples, upper-case hex", async () => {
    expect(await sha1Hex("password")).toBe("5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8");
    expect(await sha1Hex("")).toBe("DA39A3EE5E6B4B0D3255BFEF95601890AFD80709");
  });

  it("reads SUFFIX:COUNT lines and drops padding rows and anything malformed", () => {
    const range = parseRange(
      "1E4C9B93F3F0682250B6CF8331B7EE68FD8:3730471\r\n0018A45C4D1DEF81644B54AB7F969B88D65:0\r\nnot a row\r\n00D4F6E8FA6EECAD2A3AA415EEC418D38EC:2",
    );
    expect([...range]).toEqual([
      ["1E4C9B93F3F0682250B6CF8331B7EE68FD8", 3730471],
      ["00D4F6E8FA6EECAD2A3AA415EEC418D38EC", 2],
    ]);
  });

  it("sends five characters only, once per prefix, and a padding row of the password's own hash is no match", async () => {
    const exposed = await sha1Hex("password");
    const padded = await sha1Hex("only-in-padding");
    const { source, asked } = rangeSource({ [exposed]: 3730471 }, [padded]);
    const checker = new BreachChecker(source);
    expect(await checker.timesSeen("password")).toBe(3730471);
    expect(await checker.timesSeen("password")).toBe(3730471);
    expect(await checker.timesSeen("only-in-padding")).toBe(0);
    expect(asked).toEqual([exposed.slice(0, 5), padded.slice(0, 5)]);
    for (const p of asked) expect(p).toMatch(/^[0-9A-F]{5}$/);
  });

  it("forgets a failed range, so the next check asks again", async () => {
    let fail = true;
    const checker = new BreachChecker(async () => {
      if (fail) throw new Error("503");
      return "";
    });
    await expect(checker.timesSeen("x")).rejects.toThrow("503");
    fail = false;
    expect(await checker.timesSeen("x")).toBe(0);
  });
});

describe("reuse", () => {
  it("groups identical passwords and trivial variations, not short look-alikes", () => {
    expect(reuseKey("Summer2023!")).toBe(reuseKey("summer2024"));
    expect(reuseKey("abc1")).not.toBe(reuseKey("abc2"));
    const groups = findReuse([
      item("a", STRONG),
      item("b", STRONG),
      item("c", "Correcthorse2023!"),
      item("d", "correcthorse2024"),
      item("e", "abc1"),
      item("f", "abc2"),
      item("g", ""),
    ]);
    expect(groups).toEqual([
      { group: "g1", kind: "same", ids: ["a", "b"] },
      { group: "g2", kind: "similar", ids: ["c", "d"] },
    ]);
  });
});

describe("the fast path for long random passwords", () => {
  it("lets generated passwords through, and each of them the estimator also calls strong", () => {
    const alphabet = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ0123456789!#$%&*@-_";
    const sample = Array.from({ length: 60 }, () =>
      Array.from(
        crypto.getRandomValues(new Uint8Array(16)),
        (b) => alphabet[b % alphabet.length],
      ).join(""),
    );
    const taken = sample.filter((p) => isLongRandom(p, words));
    expect(taken.length).toBeGreaterThan(50);
    for (const p of taken) expect(check(p, []).score, p).toBeGreaterThanOrEqual(3);
  });

  it("sends to the estimator what a long pattern could make weak", () => {
    for (const p of [
      "Xk7!Butterfly#Qz2", // a dictionary word of 8 letters or more
      "2zQ#ylfrettuB!7kX", // the same, reversed
      "qwertyuiop123456!", // a keyboard walk
      "1qaz2wsx3edc4rfv", // a walk down the columns
      "abcdefghijklmnop1!", // a sequence
      "Aa1!Aa1!Aa1!Aa1!", // a repeat
      "19901231Xy!19901231", // digits: a date
      "Sh0rt!x9", // too short to tell
      "alllowercaseletterslong", // one kind of character
    ]) {
      expect(isLongRandom(p, words), p).toBe(false);
    }
  });
});

describe("the health check", () => {
  it("finds weak (with the estimator's reason), reused, exposed, old and missing 2FA", async () => {
    const exposedPassword = "Xq7!mW2#pL9$vB4&";
    const { source, asked } = rangeSource({ [await sha1Hex(exposedPassword)]: 12 });
    const report = await checkHealth(
      [
        item("weak", "password1"),
        item("r1", "Kj4$nP8!sD2@fG6#"),
        item("r2", "Kj4$nP8!sD2@fG6#"),
        item("leak", exposedPassword),
        item("old", "Zt5^hY1*cM3(bN7)", { changedAt: new Date(NOW - 400 * DAY).toISOString() }),
        item("undated", "Wd9%kE3&uR6*oI2!", {
          changedAt: null,
          createdAt: new Date(NOW - 500 * DAY).toISOString(),
        }),
        item("gh", "Hs2!vQ8@lA4#yU6$", { host: "gist.github.com" }),
        item("gh-ok", "Fb3$gT7%jW1^xZ5&", { host: "github.com", totp: "JBSWY3DPEHPK3PXP" }),
        item("fine", STRONG),
        item("empty", ""),
      ],
      {
        strength: await strength(),
        breach: new BreachChecker(source),
        offersTotp: (h) => hostMatches(h, new Set(["github.com"])),
        now: NOW,
      },
    );
    const by = Object.fromEntries(report.entries.map((e) => [e.id, e]));
    expect(Object.keys(by).sort()).toEqual(["gh", "leak", "old", "r1", "r2", "undated", "weak"]);
    expect(by.weak!.weak!.score).toBeLessThan(3);
    expect(by.weak!.weak!.reason).toMatch(/common|similar|guess/i);
    expect(by.r1!.reused).toEqual({ group: "g1", kind: "same", size: 2, others: ["r2"] });
    expect(by.leak!.exposed).toEqual({ count: 12 });
    expect(by.old!.old).toMatchObject({ days: 400, known: true });
    expect(by.undated!.old).toMatchObject({ days: 500, known: false });
    expect(by.gh!.no2fa).toBe(true);
    expect(report.counts).toEqual({ exposed: 1, reused: 2, weak: 1, old: 2, no2fa: 1 });
    expect(report.checked).toBe(9);
    expect(report.score).toBeGreaterThan(0);
    expect(report.score).toBeLessThan(100);
    expect(report.exposureUnchecked).toBe(0);
    // One request per distinct password, each five characters.
    expect(asked).toHaveLength(8);
    for (const p of asked) expect(p).toMatch(/^[0-9A-F]{5}$/);
  });

  it("names at most three others of a large reuse group, with the group's size", async () => {
    const items = Array.from({ length: 40 }, (_, n) => item(`s${n}`, "Kj4$nP8!sD2@fG6#"));
    const report = await checkHealth(items, {
      strength: await strength(),
      breach: null,
      offersTotp: () => false,
      now: NOW,
    });
    const first = report.entries.find((e) => e.id === "s0")!;
    const later = report.entries.find((e) => e.id === "s7")!;
    expect(first.reused).toEqual({
      group: "g1",
      kind: "same",
      size: 40,
      others: ["s1", "s2", "s3"],
    });
    expect(later.reused).toEqual({
      group: "g1",
      kind: "same",
      size: 40,
      others: ["s0", "s1", "s2"],
    });
    expect(report.reuseGroups[0]!.ids).toHaveLength(40);
  });

  it("a healthy vault scores 100; a failed range service leaves entries unchecked, not clean", async () => {
    const healthy = await checkHealth([item("a", STRONG)], {
      strength: await strength(),
      breach: new BreachChecker(rangeSource({}).source),
      offersTotp: () => false,
      now: NOW,
    });
    expect(healthy).toMatchObject({ score: 100, entries: [], exposureUnchecked: 0 });
    const down = await checkHealth([item("a", STRONG)], {
      strength: await strength(),
      breach: new BreachChecker(() =>
        Promise.reject(new Error("The breach check service is unavailable")),
      ),
      offersTotp: () => false,
      now: NOW,
    });
    expect(down).toMatchObject({
      exposureUnchecked: 1,
      exposureError: "The breach check service is unavailable",
    });
  });
});
