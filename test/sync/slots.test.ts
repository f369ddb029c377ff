import { describe, expect, it } from "vitest";
import { BatchSlots, changesAt } from "../../src/domains/sync/slots";

describe("a batch's statement slots (the sync push's budgeting)", () => {
  it("gives each statement the position its result comes back in, a kept slot where it was kept", () => {
    const slots = new BatchSlots<string>();
    expect(slots.add("advance")).toBe(0);
    const bulk = slots.reserve();
    expect(slots.add("update a")).toBe(2);
    expect(slots.addAll(["hosts 1", "hosts 2"])).toEqual([3, 4]);
    expect(slots.add("read clock")).toBe(5);
    slots.fill(bulk, "insert new");
    expect(bulk).toBe(1);
    expect(slots.size).toBe(6);
    expect(slots.statements()).toEqual([
      "advance",
      "insert new",
      "update a",
      "hosts 1",
      "hosts 2",
      "read clock",
    ]);
  });

  it("refuses the batch while a kept slot is empty, and a fill of a slot that was not kept", () => {
    const slots = new BatchSlots<string>();
    const used = slots.add("advance");
    const kept = slots.reserve();
    expect(() => slots.statements()).toThrow(/never filled: 1/);
    expect(() => slots.fill(used, "over the advance")).toThrow(/not kept/);
    slots.fill(kept, "insert");
    expect(() => slots.fill(kept, "again")).toThrow(/not kept/);
    expect(slots.statements()).toEqual(["advance", "insert"]);
  });

  it("reads a write's changed rows from D1's answer, 0 when it changed none or has no count", () => {
    const out = [{ results: [] }, { meta: { changes: 3 } }, { meta: { changes: null } }, {}];
    expect(changesAt(out, 1)).toBe(3);
    expect(changesAt(out, 2)).toBe(0);
    expect(changesAt(out, 3)).toBe(0);
    expect(changesAt(out, 9)).toBe(0);
  });
});
