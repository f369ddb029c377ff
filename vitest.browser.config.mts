import { defineConfig } from "vitest/config";

// The web client's suite: Node-side tests (crypto units, the OpenAPI contract) and Chromium driven
// by playwright-core against a real wrangler dev started by the global setup. The browser files
// share one worker and take turns: two cores are shared with other suites.
export default defineConfig({
  test: {
    include: ["client/test/**/*.test.ts"],
    environment: "node",
    globalSetup: ["./client/test/support/worker.ts"],
    setupFiles: [
      "./client/test/support/fresh-connections.ts",
      "./client/test/support/failure-setup.ts",
    ],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // The page works asynchronously (IndexedDB, Web Crypto, the service worker): poll patiently.
    expect: { poll: { timeout: 10_000, interval: 100 } },
  },
});
