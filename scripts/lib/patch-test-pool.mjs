// Mends a quadratic slowdown in @cloudflare/vitest-pool-workers 0.23.0, the newest release the
// registry has: its wrapper for every Durable Object class (createProxyPrototypeClass) installs a
// Proxy over the class's prototype inside the constructor, around the Proxy the previous
// construction installed. Each new object adds one `get` trap to every later property lookup, so
// the N-th new object costs O(N). The worker suite's shared runtime makes a rate limiter object for
// every test user; measured there, a new object went from 37 ms to 529 ms over 600 of them, and
// the one-database pass took 945 s where it had taken 252 s. Upstream fixed it the same way
// (cloudflare/workers-sdk#15092, "Install wrapper prototype proxy once", #15106), in a release not
// yet published: the Proxy is still installed at the first construction (workerd's introspection
// needs that delay), but once per class.
//
// Idempotent, and harmless once a release carries the fix: it changes the file only when the
// unfixed line is there, and says so when it finds neither form.
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const file = join(
  root,
  "node_modules/@cloudflare/vitest-pool-workers/dist/worker/lib/cloudflare/test-internal.mjs",
);
const UNFIXED = "\t\tClass.prototype = new Proxy(Class.prototype, { get(target, key, receiver) {";
const FIXED =
  "\t\tif (!Object.hasOwn(Class, kProxyInstalled) && (Class[kProxyInstalled] = true)) Class.prototype = new Proxy(Class.prototype, { get(target, key, receiver) {";
const MARK = 'const kProxyInstalled = Symbol.for("vault.test-pool.proxy-installed");\n';

if (!existsSync(file)) {
  console.log("patch-test-pool: @cloudflare/vitest-pool-workers is not installed; nothing to mend");
} else {
  const src = readFileSync(file, "utf8");
  if (src.includes(FIXED)) {
    // Already mended (an earlier setup).
  } else if (src.includes(UNFIXED)) {
    const at = src.indexOf("function createProxyPrototypeClass(");
    if (at < 0)
      throw new Error(
        "patch-test-pool: createProxyPrototypeClass not found beside the unfixed line",
      );
    const out = src.slice(0, at) + MARK + src.slice(at).replace(UNFIXED, FIXED);
    // Write the bytes in place rather than replacing the file: node_modules may be hard-linked
    // into other checkouts, which then get the same mend.
    writeFileSync(file, out);
    console.log(
      "patch-test-pool: the Durable Object wrapper's prototype Proxy is now installed once per class",
    );
  } else {
    console.log(
      "patch-test-pool: the pool's wrapper no longer has the per-construction Proxy line; nothing to mend (check the release notes)",
    );
  }
}
