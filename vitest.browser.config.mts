import { defineConfig } from "vitest/config";

// The web client's suite: Node-side tests (crypto units, the OpenAPI contract) and Chromium driven
// by playwright-core against real wrangler devs started by the global setup. Two files run at once
// (BROWSER_SERVERS changes how many; 1 for a file or two by hand saves starting a second set), each
// against a server set of its own: its own wrangler dev and D1, OpenID provider and stand-ins
// (client/test/support/server.ts picks the set by the file's slot). Most of a browser file's time
// is waiting (the page, timers, polls), so two at once on two cores take about half as long.
const SERVER_SETS = Number(process.env.BROWSER_SERVERS ?? "2");
export default defineConfig({
  test: {
    include: ["client/test/**/*.test.ts"],
    environment: "node",
    globalSetup: ["./client/test/support/worker.ts"],
    setupFiles: [
      "./client/test/support/fresh-connections.ts",
      "./client/test/support/failure-setup.ts",
    ],
    // The global setup starts one server set per slot (project.config.maxWorkers).
    maxWorkers: SERVER_SETS,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // The page works asynchronously (IndexedDB, Web Crypto, the service worker): poll patiently.
    expect: { poll: { timeout: 10_000, interval: 100 } },
  },
});
