import { describe, expect, it } from "vitest";
import { countOf } from "../../src/kernel/plural";

describe("countOf", () => {
  it("says one unit in the singular and every other count in the plural", () => {
    expect(countOf(1, "hour")).toBe("1 hour");
    expect(countOf(2, "hour")).toBe("2 hours");
    expect(countOf(0, "day")).toBe("0 days");
    expect(countOf(48, "hour")).toBe("48 hours");
    expect(countOf(1, "entry", "entries")).toBe("1 entry");
    expect(countOf(3, "entry", "entries")).toBe("3 entries");
  });
});
