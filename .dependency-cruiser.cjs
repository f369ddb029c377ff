/**
 * The layering (README "Layout"), checked by `npm test` (scripts/test.sh). Read each rule as a
 * sentence; a new import that breaks one fails the run.
 *
 *   kernel            pure shared modules (worker, web client, importers): import nothing of ours
 *   lib               pure helpers of the worker: kernel only
 *   db                tables, dbFor, the change clock: kernel and lib only
 *   durable-objects/  leaves: kernel and lib only; domains reach them through typed clients and
 *                     the entry (src/index.ts) registers what they run
 *   http              middleware and the route builder: kernel, lib, db, env
 *   domains/<d>       may use kernel, lib, db, env, http, durable-objects and another domain only
 *                     through that domain's index.ts; the passwords table is imported only by
 *                     the passwords domain (and src/db), the others use its index.ts
 *   client/src        browser code: itself and kernel only
 *   client/, extension/  browser code never reaches a server domain, not even through a module
 *                     between (the extension also reads the built-in registry data, src/data/registry,
 *                     which itself imports only kernel)
 */
const DOMAIN = "^src/domains/([^/]+)/";

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment:
        "An import circle ties modules into one; break it at the layer that owns the shared piece.",
      from: {},
      to: { circular: true },
    },
    {
      name: "kernel-is-pure",
      severity: "error",
      comment: "src/kernel is shared with the browser: it imports nothing of ours.",
      from: { path: "^src/kernel/" },
      to: { path: "^(src|durable-objects|client)/", pathNot: "^src/kernel/" },
    },
    {
      name: "lib-is-a-leaf",
      severity: "error",
      comment: "src/lib knows nothing above it.",
      from: { path: "^src/lib/" },
      to: { path: "^(src|durable-objects|client)/", pathNot: "^src/(lib|kernel)/" },
    },
    {
      name: "db-is-a-leaf",
      severity: "error",
      comment: "src/db knows nothing above it.",
      from: { path: "^src/db/" },
      to: { path: "^(src|durable-objects|client)/", pathNot: "^src/(db|lib|kernel)/" },
    },
    {
      name: "durable-objects-are-leaves",
      severity: "error",
      comment: "A Durable Object holds no domain rules: the entry registers them (src/index.ts).",
      from: { path: "^durable-objects/" },
      to: { path: "^(src|client)/", pathNot: "^src/(lib|kernel)/" },
    },
    {
      name: "http-below-domains",
      severity: "error",
      comment: "Middleware and the route builder do not reach into domains.",
      from: { path: "^src/http/" },
      to: { path: "^src/(domains|app\\.ts|index\\.ts)" },
    },
    {
      name: "env-is-config",
      severity: "error",
      comment: "env.ts is configuration: lib, kernel and the Durable Object types only.",
      from: { path: "^src/env\\.ts$" },
      to: { path: "^src/(domains|http|db)/" },
    },
    {
      name: "domains-through-their-index",
      severity: "error",
      comment:
        "Another domain is used only through its index.ts (its public surface), never its repo or other files.",
      from: { path: DOMAIN },
      to: {
        path: "^src/domains/([^/]+)/",
        pathNot: ["^src/domains/$1/", "^src/domains/[^/]+/index\\.ts$"],
      },
    },
    {
      name: "passwords-table-has-one-owner",
      severity: "error",
      comment:
        "The passwords table is the passwords domain's: every other domain reads and writes entries through its index.ts (statement builders it can put in its own batch), so one place knows every write of a vault entry.",
      from: { path: "^(src|durable-objects)/", pathNot: "^src/(domains/passwords|db)/" },
      to: { path: "^src/db/schema/passwords\\.ts$" },
    },
    {
      name: "entry-through-domain-index",
      severity: "error",
      comment: "The entry and the app reach domains only through their index.ts.",
      from: { path: "^src/(index|app)\\.ts$" },
      to: { path: "^src/domains/", pathNot: "^src/domains/[^/]+/index\\.ts$" },
    },
    {
      name: "browser-code-shares-only-pure-modules",
      severity: "error",
      comment: "Browser code imports itself and src/kernel only.",
      from: { path: "^client/src/" },
      to: { path: "^(src|durable-objects)/", pathNot: "^src/kernel/" },
    },
    {
      name: "browsers-never-reach-server-domains",
      severity: "error",
      comment:
        "The web client and the extension share src/kernel with the worker, never a domain (directly or through src/data): what both sides need moves into the pure layer.",
      from: { path: "^(client|extension)/" },
      to: { path: "^src/domains/", reachable: true },
    },
    {
      name: "registry-data-is-pure",
      severity: "error",
      comment: "The built-in registry data is bundled into the extension: kernel only.",
      from: { path: "^src/data/" },
      to: { path: "^(src|durable-objects|client)/", pathNot: "^src/(data|kernel)/" },
    },
    {
      name: "server-never-imports-browser-code",
      severity: "error",
      from: { path: "^(src|durable-objects)/" },
      to: { path: "^client/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    exclude: { path: "^(node_modules|public)/" },
  },
};
