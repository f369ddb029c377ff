import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Live-sync notices are sent by the writer itself (src/db/clock-announce.ts `announceClocks`),
 * not found by the database layer in the SQL it runs. So a writer that advances a user's change
 * clock and forgets to announce it would leave that user's devices waiting for the 5-minute
 * safety-net pull. This check reads the server's code: in each module, every call that advances a
 * clock is followed by an `announceClocks` call before the next advance (or the end).
 */
const ADVANCE = /\badvanceClock(?:Compiled\.on)?\s*\(/g;
const ANNOUNCE = /\bannounceClocks\s*\(/g;

/** The code without its comments, line breaks kept, so a line number still points at the source. */
function code(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, " "))
    .replace(/\/\/[^\n]*/g, "");
}

/** Line numbers of the advances in `text` that no announcement follows before the next advance. */
export function unannounced(text: string): number[] {
  const src = code(text);
  const calls = [
    ...[...src.matchAll(ADVANCE)].map((m) => ({ at: m.index, advance: true })),
    ...[...src.matchAll(ANNOUNCE)].map((m) => ({ at: m.index, advance: false })),
  ].sort((a, b) => a.at - b.at);
  const missing: number[] = [];
  calls.forEach((c, i) => {
    if (c.advance && calls[i + 1]?.advance !== false)
      missing.push(src.slice(0, c.at).split("\n").length);
  });
  return missing;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return /\.(ts|mts|mjs)$/.test(e.name) ? [path] : [];
  });
}

describe("every writer that advances a change clock announces it (live sync)", () => {
  it("holds for the server's code as committed", () => {
    const files = [...sources("src"), ...sources("durable-objects")].filter(
      // Where the statement is defined, not run.
      (f) => f !== join("src", "db", "change-clock.ts"),
    );
    const offenders = files.flatMap((f) =>
      unannounced(readFileSync(f, "utf8")).map((line) => `${f}:${line}`),
    );
    expect(offenders).toEqual([]);
    // The check sees the writers it is about (it would pass vacuously if the pattern went stale).
    const advancing = files.filter((f) => code(readFileSync(f, "utf8")).match(ADVANCE));
    expect(advancing.length).toBeGreaterThanOrEqual(6);
  });

  it("names an advance with no announcement, or one whose announcement went to an earlier batch", () => {
    expect(
      unannounced(
        [
          "const [a] = await db.batch([advanceClock(db, u), x]);",
          "announceClocks(env, a);",
          "const [b] = await db.batch([advanceClock(db, u), y]);",
          "const [c] = await d1.batch([advanceClockCompiled.on(d1, p), z]);",
          "announceClocks(env, c);",
        ].join("\n"),
      ),
    ).toEqual([3]);
    expect(unannounced("await db.batch([advanceClock(db, u)]);\nreturn true;")).toEqual([1]);
  });

  it("does not count an announcement that is only mentioned in a comment", () => {
    expect(
      unannounced(
        [
          "const [a] = await db.batch([advanceClock(db, u)]);",
          "// announceClocks(env, a) is not needed here",
          "/* nor announceClocks(env, a) */",
        ].join("\n"),
      ),
    ).toEqual([1]);
    expect(unannounced("// advanceClock(db, u) in a comment\nconst x = 1;")).toEqual([]);
  });
});
