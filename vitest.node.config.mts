import { defineConfig } from "vitest/config";

// Node-side suites: the command line (test/cli: the real `vault` against wrangler dev and the local
// OpenID provider) and the repository's tooling (test/deploy: the production check and the first
// deploy against a stub wrangler; test/tooling: the cross-reference check). They run scripts and
// child processes, so not inside workerd (vitest.config.mts excludes them there).
// `*.node.test.ts` files are browser code that compiles WebAssembly (the KeePass importer's
// Argon2), which workerd refuses to do at run time.
export default defineConfig({
  test: {
    include: [
      "test/cli/**/*.test.ts",
      "test/deploy/**/*.test.ts",
      "test/tooling/**/*.test.ts",
      "test/**/*.node.test.ts",
    ],
    environment: "node",
    // Each reads wrangler's configuration (importing wrangler costs seconds on a loaded machine).
    testTimeout: 240_000,
    hookTimeout: 240_000,
  },
});
