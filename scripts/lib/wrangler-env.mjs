// The environment the scripts run `wrangler` in. The project's own wrangler (node_modules/.bin)
// is found after whatever PATH already names: `npm run` puts node_modules/.bin first, so npm
// scripts get the project's version, and a test can put a stub wrangler ahead of it.
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";

const bin = join(fileURLToPath(new URL("../..", import.meta.url)), "node_modules", ".bin");

export function wranglerEnv(extra = {}) {
  return {
    ...process.env,
    PATH: [process.env.PATH, bin].filter(Boolean).join(delimiter),
    CI: "true",
    WRANGLER_SEND_METRICS: "false",
    ...extra,
  };
}
