/**
 * What Cloudflare's Browser Rendering allows this deployment, as resets and session shares meet it
 * (docs/cost.md, "The free plan"): the Workers Free plan gives 10 minutes of browser time a day, and
 * a deploy may leave the binding out altogether. Either way a person is told so in words.
 */

/**
 * What a person is told when Browser Rendering refuses a browser because the account's browser
 * time for the day is spent: retrying within the day cannot help, so the reset or the share ends
 * with this instead.
 */
export const BROWSER_DAY_SPENT =
  "today's browser time on this service's Cloudflare plan is used up (the free plan allows 10 minutes a day): try again after 00:00 UTC";

/** Browser Rendering's refusal once the day's browser time is spent ("429 … time limit exceeded"). */
export const isBrowserDaySpent = (err: unknown): boolean =>
  err instanceof Error && /time limit exceeded/i.test(err.message);

/** What a person is told when the deployment has no Browser Rendering binding (BROWSER). */
export const BROWSER_ABSENT =
  "This service is deployed without Cloudflare Browser Rendering, which automated browsers need: ask whoever runs it to add the BROWSER binding";

/**
 * Whether the deployment has a Browser Rendering binding. wrangler.toml binds it in every
 * environment; a deploy that leaves `[browser]` out has none, and the type says otherwise. Asked
 * with `in`, never by reading it: a request's environment is a proxy that opens a D1 session on
 * whatever answers like a database (src/db/sessions.ts), and a Fetcher answers every name.
 */
export const hasBrowserRendering = (env: object): boolean => "BROWSER" in env;
