import { describe, expect, it, vi } from "vitest";
import type { LocalDb, LocalEntry, PulledChange } from "../../core/store/db";
import { ENTRIES_AHEAD, PageWriter } from "../../core/sync/page-writer";
import { Arrivals } from "../src/sections/vault/arrivals";
import type { PageListener } from "../../core/sync/sync-engine";

// A pull's pages are told of once parsed and stored behind the parse: the store must still hold a
// prefix of the pull with the position after it, the reader may run only so far ahead, and the
// vault page's re-read of the store must keep what it was told of and the store does not hold yet.
const entry = (id: string): LocalEntry => ({
  userId: "u",
  id,
  name: id,
  website: null,
  url: null,
  tags: [],
  encryption_version: 3,
  wrapped_item_key: "k",
  encrypted_data: "d",
  created_at: "",
  updated_at: "",
  search_tokens: null,
});
const page = (n: number): PulledChange[] => [entry(`a${n}`), entry(`b${n}`)];

/** A store whose writes wait until the test lets them commit (or fail). */
function heldStore() {
  const writes: {
    ids: string[];
    resume: string;
    commit: () => void;
    fail: (e: unknown) => void;
  }[] = [];
  const held: string[] = [];
  let position: string | undefined;
  const db = {
    applyPage(_u: string, changes: PulledChange[], resume: string) {
      return new Promise<void>((resolve, reject) => {
        writes.push({
          ids: changes.map((c) => c.id),
          resume,
          commit: () => {
            held.push(...changes.map((c) => c.id));
            position = resume;
            resolve();
          },
          fail: reject,
        });
      });
    },
  } as unknown as LocalDb;
  return { db, writes, held, position: () => position };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("a pull's pages written behind the parse", () => {
  it("writes in the pull's order, those waiting together with the last one's position", async () => {
    const s = heldStore();
    const w = new PageWriter(s.db, "u", null);
    const stored = [0, 1, 2, 3].map((n) => w.add(page(n), `r${n}`));
    await tick();
    // The first page's write started alone; the three parsed meanwhile wait for it.
    expect(s.writes.map((x) => x.resume)).toEqual(["r0"]);
    s.writes[0]!.commit();
    await stored[0];
    await tick();
    expect(s.writes.map((x) => x.resume)).toEqual(["r0", "r3"]);
    expect(s.writes[1]!.ids).toEqual([...page(1), ...page(2), ...page(3)].map((c) => c.id));
    s.writes[1]!.commit();
    await Promise.all(stored);
    await w.flushed();
    expect(s.position()).toBe("r3");
  });

  it("lets the reader run at most ENTRIES_AHEAD entries ahead of the store", async () => {
    const s = heldStore();
    const w = new PageWriter(s.db, "u", null);
    for (let n = 0; n < ENTRIES_AHEAD / 2; n++) w.add(page(n), `r${n}`);
    let room = false;
    void w.room().then(() => (room = true));
    await tick();
    expect(room).toBe(false);
    s.writes[0]!.commit();
    await tick();
    expect(room).toBe(true);
    // The pages waiting meanwhile go in writes of at most 2,000 entries.
    expect(s.writes[1]!.ids).toHaveLength(2_000);
  });

  it("writes nothing after a failed write: the store keeps a prefix and its position", async () => {
    const s = heldStore();
    const w = new PageWriter(s.db, "u", null);
    const first = w.add(page(0), "r0");
    const second = w.add(page(1), "r1");
    await tick();
    s.writes[0]!.fail(new DOMException("quota", "QuotaExceededError"));
    await expect(first).rejects.toThrow("quota");
    await expect(second).rejects.toThrow("quota");
    await expect(w.flushed()).rejects.toThrow("quota");
    await expect(w.room()).rejects.toThrow("quota");
    expect(s.writes).toHaveLength(1);
    expect(s.position()).toBeUndefined();
  });
});

describe("the vault page's arrivals over a re-read of the store", () => {
  it("keeps the pages told of and not stored yet, and drops them once stored", async () => {
    let listener: PageListener = () => undefined;
    const taken: PulledChange[][] = [];
    const arrivals = new Arrivals(
      { onPage: (l) => ((listener = l), () => undefined) },
      {
        ready: () => false,
        empty: () => false,
        merge: (c) => taken.push(c),
        draw: () => undefined,
      },
    );
    let store0 = () => {};
    let lose1 = () => {};
    listener(page(0), new Promise<void>((r) => (store0 = r)));
    listener(page(1), new Promise<void>((_, r) => (lose1 = () => r(new Error("cut")))));
    listener(page(2), new Promise<void>(() => undefined));
    arrivals.restart();
    expect(arrivals.all().map((c) => c.id)).toEqual(
      [...page(0), ...page(1), ...page(2)].map((c) => c.id),
    );
    store0();
    lose1();
    await tick();
    // Page 0 is in the store now and page 1 never will be: a read from here on needs page 2 only.
    arrivals.restart();
    expect(arrivals.all().map((c) => c.id)).toEqual(page(2).map((c) => c.id));
    arrivals.stop();
  });
});

describe("the vault page's arrivals as pages come", () => {
  it("draws the first page at once, then merges pages four times as often as it draws the list", () => {
    vi.useFakeTimers();
    try {
      let listener: PageListener = () => undefined;
      const log: string[] = [];
      let listed = 0;
      const arrivals = new Arrivals(
        { onPage: (l) => ((listener = l), () => undefined) },
        {
          ready: () => true,
          empty: () => listed === 0,
          merge: (c) => ((listed += c.length), log.push(`merge ${c.length}`)),
          draw: (first) => log.push(first ? "draw first" : "draw"),
        },
      );
      const arrive = (n: number) => listener(page(n), new Promise<void>(() => undefined));
      arrive(0);
      vi.advanceTimersByTime(0);
      expect(log).toEqual(["merge 2", "draw first"]);
      // A page every 50 ms for a second: merged every 125 ms, drawn 500 ms after the first merge since the last drawing.
      for (let n = 1; n <= 20; n++) {
        arrive(n);
        vi.advanceTimersByTime(50);
      }
      const merges = log.filter((l) => l.startsWith("merge")).length;
      const draws = log.filter((l) => l === "draw").length;
      // The first merge and six more (at 125, 275 ... 875 ms); one drawing, 500 ms after the merge at 125 ms.
      expect(merges).toBe(7);
      expect(draws).toBe(1);
      expect(log.slice(0, 7)).toEqual([
        "merge 2",
        "draw first",
        "merge 6",
        "merge 6",
        "merge 6",
        "merge 6",
        "draw",
      ]);
      // The pull ends: what came since the last merge is merged and drawn at once.
      arrive(21);
      arrivals.flush();
      expect(log.slice(-2)).toEqual(["merge 6", "draw"]);
      expect(listed).toBe(22 * 2);
      // Nothing left: a flush draws nothing again, and no timer is left to draw later.
      arrivals.flush();
      vi.advanceTimersByTime(1000);
      expect(log.slice(-2)).toEqual(["merge 6", "draw"]);
      arrivals.stop();
    } finally {
      vi.useRealTimers();
    }
  });
});
