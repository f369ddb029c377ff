import { describe, expect, it } from "vitest";
import type { Bindings } from "../../src/env";
import {
  BROWSER_DAY_SPENT,
  FlowFailure,
  launchBrowser,
} from "../../src/domains/reset/browser-flow";

/** A Browser Rendering binding that answers every launch with the given status and text. */
const browserAnswering = (status: number, text: string) =>
  ({ BROWSER: { fetch: async () => new Response(text, { status }) } }) as unknown as Bindings;

describe("a reset's browser when the day's browser time is spent (the free plan's 10 minutes)", () => {
  it("ends the reset with words that say so and when to try again, not a retry", async () => {
    const env = browserAnswering(429, "Browser time limit exceeded for today");
    const err = await launchBrowser(env).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FlowFailure);
    expect((err as Error).message).toBe(BROWSER_DAY_SPENT);
    expect(BROWSER_DAY_SPENT).toContain("after 00:00 UTC");
  });

  it("leaves any other refusal to the retries as before", async () => {
    const env = browserAnswering(429, "Rate limit exceeded");
    const err = await launchBrowser(env).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(FlowFailure);
  });
});
