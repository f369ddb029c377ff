// A vault sealed with the web client's own crypto (core/crypto/crypto.ts and envelope.ts, bundled
// by esbuild for Node) and pushed through sync, for the benches that need thousands of real
// entries in a browser (dashboard, extension).
import { build } from "esbuild";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "../../scripts/lib/dev-identity.mjs";

let crypto_;
async function clientCrypto() {
  if (crypto_) return crypto_;
  const outfile = join(ROOT, "bench", "out", "client-crypto.mjs");
  await build({
    stdin: {
      contents: `export { deriveVaultKeys, blindIndexes } from "./core/crypto/crypto.ts"; export { sealEntry, placeOf } from "./core/crypto/envelope.ts";`,
      resolveDir: ROOT,
      loader: "ts",
    },
    outfile,
    bundle: true,
    format: "esm",
    platform: "node",
    logLevel: "warning",
  });
  crypto_ = await import(pathToFileURL(outfile).href);
  return crypto_;
}

/**
 * Seals `count` entries for `sub` under `passphrase` and pushes them in batches of 100 (a sync
 * push's maximum). `website(n)` names entry n's site; names are `Entry n`, usernames `user<n>@…`.
 */
export async function seedVault({ base, token, sub, passphrase, count, website }) {
  const { deriveVaultKeys, sealEntry, placeOf, blindIndexes } = await clientCrypto();
  const auth = { authorization: `Bearer ${token}` };
  const { csrfToken } = await (
    await fetch(`${base}/api/auth/csrf-token`, { headers: auth })
  ).json();
  const keys = await deriveVaultKeys(passphrase, sub);
  const now = new Date().toISOString();
  for (let i = 0; i < count; i += 100) {
    const mutations = await Promise.all(
      Array.from({ length: Math.min(100, count - i) }, async (_, k) => {
        const n = i + k;
        const site = website(n);
        const username = `user${n}@example.test`;
        const id = crypto.randomUUID();
        const envelope = await sealEntry(keys, placeOf(sub, { id, website: site }), {
          username,
          password: `pw-${n}-${crypto.randomUUID()}`,
          notes: "",
          category: "",
          totp: "",
          address: site,
        });
        const idx = await blindIndexes(keys, { name: `Entry ${n}`, website: site, username });
        return {
          action: "create",
          id,
          clientUpdatedAt: now,
          data: {
            name: `Entry ${n}`,
            website: site,
            tags: [],
            ...envelope,
            encryption_version: 3,
            ...idx,
            domain_hash: idx.domain_hash ?? null,
          },
        };
      }),
    );
    const res = await fetch(`${base}/api/passwords/sync`, {
      method: "POST",
      headers: { ...auth, "x-csrf-token": csrfToken, "content-type": "application/json" },
      body: JSON.stringify({ mutations }),
    });
    if (!res.ok) throw new Error(`seed: ${res.status} ${await res.text()}`);
  }
}
