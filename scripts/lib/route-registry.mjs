// The route registry outside workerd: each domain's routes module is bundled (esbuild, already a
// dependency) and its register functions run against a throwaway app, so the registry then says
// which routes each file declared. docs/routes.md (route-table.mjs) and the client's wire types
// (wire-types.mjs) are both read from it.
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

export const root = fileURLToPath(new URL("../..", import.meta.url));

/**
 * `routes`: each route's method, path, summary and file; `configKeys`: the variables src/env.ts
 * reads; `openapi`: the OpenAPI document of /api/openapi.json, built by the same function.
 */
export async function loadRegistry() {
  const domains = join(root, "src", "domains");
  const modules = readdirSync(domains)
    .map((d) => join(domains, d, "routes.ts"))
    .filter((p) => existsSync(p));
  const entry = [
    `import { Hono } from "hono";`,
    `import { registry } from ${JSON.stringify(join(root, "src/http/route.ts"))};`,
    `import { buildOpenApi } from ${JSON.stringify(join(root, "src/http/openapi.ts"))};`,
    `export { ConfigSchema } from ${JSON.stringify(join(root, "src/env.ts"))};`,
    ...modules.map((p, i) => `import * as m${i} from ${JSON.stringify(p)};`),
    `const files = ${JSON.stringify(modules.map((p) => relative(root, p)))};`,
    `export function collect() {`,
    `  const out = [];`,
    `  [${modules.map((_, i) => `m${i}`).join(", ")}].forEach((mod, i) => {`,
    `    for (const [name, fn] of Object.entries(mod)) {`,
    `      if (typeof fn !== "function" || !/^register\\w*Routes$/.test(name)) continue;`,
    `      const before = registry.length;`,
    `      fn(new Hono());`,
    `      for (const r of registry.slice(before)) out.push({ method: r.method.toUpperCase(), path: r.path, summary: r.summary ?? "", file: files[i] });`,
    `    }`,
    `  });`,
    `  return { routes: out, openapi: buildOpenApi(registry) };`,
    `}`,
  ].join("\n");
  const dir = mkdtempSync(join(tmpdir(), "route-registry-"));
  const outfile = join(dir, "routes.mjs");
  try {
    await build({
      stdin: { contents: entry, resolveDir: root, loader: "js" },
      bundle: true,
      format: "esm",
      platform: "node",
      outfile,
      logLevel: "error",
      external: ["cloudflare:*", "node:*"],
      plugins: [
        {
          name: "workers-only",
          setup(b) {
            b.onResolve({ filter: /^cloudflare:/ }, (a) => ({ path: a.path, namespace: "stub" }));
            b.onLoad({ filter: /.*/, namespace: "stub" }, () => ({
              contents:
                "module.exports = { DurableObject: class {}, WorkerEntrypoint: class {}, env: {} };",
              loader: "js",
            }));
          },
        },
      ],
    });
    const { collect, ConfigSchema } = await import(outfile);
    const { routes, openapi } = collect();
    routes.sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
    return { routes, configKeys: Object.keys(ConfigSchema.shape), openapi };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
