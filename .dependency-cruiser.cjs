/**
 * The layering (README "Layout"), checked by `npm test` (scripts/test.sh). Read each rule as a
 * sentence; a new import that breaks one fails the run.
 *
 *   kernel            pure shared modules (worker, client core, apps, importers), the built-in
 *                     registry data among them (src/kernel/registry): import nothing of ours
 *   lib               pure helpers of the worker: kernel only
 *   db                tables, dbFor, the change clock: kernel and lib only
 *   durable-objects/  leaves: kernel and lib only; domains reach them through typed clients and
 *                     the entry (src/index.ts) registers what they run
 *   http              middleware and the route builder: kernel, lib, db, env
 *   domains/<d>       may use kernel, lib, db, env, http, durable-objects and another domain only
 *                     through that domain's index.ts; the passwords table is imported only by
 *                     the passwords domain (and src/db), the others use its index.ts
 *   data              the worker's other data (personas, known services): kernel only
 *   core/<part>       the client core every app shares (crypto, api, store, sync, vault, vaults, ...): kernel
 *                     and another part only through that part's index.ts, never an app or server
 *                     code; ui and device read the page, so no other part imports them
 *   client/src, extension/src, cli/
 *                     the apps (web app, browser extension, command line): core only through a
 *                     part's index.ts, kernel, and themselves; never another app, never server code
 *   every browser-side module never reaches a server domain, not even through a module between
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
      to: { path: "^(src|durable-objects|core|client|extension|cli)/", pathNot: "^src/kernel/" },
    },
    {
      name: "lib-is-a-leaf",
      severity: "error",
      comment: "src/lib knows nothing above it.",
      from: { path: "^src/lib/" },
      to: {
        path: "^(src|durable-objects|core|client|extension|cli)/",
        pathNot: "^src/(lib|kernel)/",
      },
    },
    {
      name: "db-is-a-leaf",
      severity: "error",
      comment: "src/db knows nothing above it.",
      from: { path: "^src/db/" },
      to: {
        path: "^(src|durable-objects|core|client|extension|cli)/",
        pathNot: "^src/(db|lib|kernel)/",
      },
    },
    {
      name: "notices-are-sent-by-writers",
      severity: "error",
      comment:
        "The database layer runs statements and tells no hub: a writer that advances a change clock announces it itself (src/db/clock-announce.ts, test/tooling/clock-notices.test.ts).",
      from: { path: "^src/db/", pathNot: "^src/db/clock-announce\\.ts$" },
      to: { path: "^src/db/clock-announce\\.ts$" },
    },
    {
      name: "durable-objects-are-leaves",
      severity: "error",
      comment: "A Durable Object holds no domain rules: the entry registers them (src/index.ts).",
      from: { path: "^durable-objects/" },
      to: { path: "^(src|core|client|extension|cli)/", pathNot: "^src/(lib|kernel)/" },
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
      name: "core-imports-only-kernel-and-core",
      severity: "error",
      comment:
        "The client core is shared by every app: it imports src/kernel and itself, never an app (client/, extension/, cli/) nor server code.",
      from: { path: "^core/" },
      to: { path: "^(src|durable-objects|client|extension|cli)/", pathNot: "^src/kernel/" },
    },
    {
      name: "core-parts-through-their-index",
      severity: "error",
      comment:
        "A core part uses another part only through that part's index.ts (its public surface), never its other files.",
      from: { path: "^core/([^/]+)/" },
      to: { path: "^core/([^/]+)/", pathNot: ["^core/$1/", "^core/[^/]+/index\\.ts$"] },
    },
    {
      name: "core-below-the-page",
      severity: "error",
      comment:
        "core/ui and core/device read the page (the DOM, the screen): no other part imports them, so a command line can use every other part.",
      from: { path: "^core/", pathNot: "^core/(ui|device)/" },
      to: { path: "^core/(ui|device)/" },
    },
    {
      name: "apps-use-core-through-its-index",
      severity: "error",
      comment:
        "The web app, the extension and the command line reach the core only through a part's index.ts.",
      from: { path: "^(client/src|extension/src|cli)/" },
      to: { path: "^core/", pathNot: "^core/[^/]+/index\\.ts$" },
    },
    {
      name: "apps-share-only-core-and-kernel",
      severity: "error",
      comment: "An app imports the core, src/kernel and itself, never server code.",
      from: { path: "^(client/src|extension/src|cli)/" },
      to: { path: "^(src|durable-objects)/", pathNot: "^src/kernel/" },
    },
    {
      name: "apps-stay-apart",
      severity: "error",
      comment:
        "No app imports another (the extension nothing of client/): what two apps need moves into the core.",
      from: { path: "^(client/src|extension/src|cli)/" },
      to: { path: "^(client|extension|cli)/", pathNot: "^$1/" },
    },
    {
      name: "command-line-has-no-page",
      severity: "error",
      comment: "The command line has no DOM: it never imports core/ui or core/device.",
      from: { path: "^cli/" },
      to: { path: "^core/(ui|device)/" },
    },
    {
      name: "browsers-never-reach-server-domains",
      severity: "error",
      comment:
        "The core and the apps share src/kernel with the worker, never a domain (directly or through a module between): what both sides need moves into the pure layer.",
      from: { path: "^(core|client|extension|cli)/" },
      to: { path: "^src/domains/", reachable: true },
    },
    {
      name: "data-is-pure",
      severity: "error",
      comment: "The worker's data (personas, known services) imports kernel only.",
      from: { path: "^src/data/" },
      to: {
        path: "^(src|durable-objects|core|client|extension|cli)/",
        pathNot: "^src/(data|kernel)/",
      },
    },
    {
      name: "server-never-imports-browser-code",
      severity: "error",
      comment:
        "The worker and its Durable Objects import no client code: not the core, not an app.",
      from: { path: "^(src|durable-objects)/" },
      to: { path: "^(core|client|extension|cli)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    exclude: { path: "^(node_modules|public)/" },
  },
};
