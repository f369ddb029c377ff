// Shared vaults set up for the benches through the API with the apps' own core (core/vaults and
// core/api, bundled by esbuild for Node): a vault whose key the bench holds, entries sealed in its
// place by addVaultEntry, members invited, accepted and given a copy; and, where only the server's
// share is measured, vault rows written straight into local D1 like seedEntries' personal ones.
import { build } from "esbuild";
import http from "node:http";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { gunzipSync } from "node:zlib";
import { ROOT } from "../../scripts/lib/dev-identity.mjs";
import { b64, hex, writeSql } from "./harness.mjs";

let core_;
/** core/api's ApiClient and sharingApi, and everything core/vaults exports. */
export async function vaultCore() {
  if (core_) return core_;
  const outfile = join(ROOT, "bench", "out", "vault-core.mjs");
  await build({
    stdin: {
      contents: `export { ApiClient, sharingApi } from "./core/api/index.ts"; export * from "./core/vaults/index.ts";`,
      resolveDir: ROOT,
      loader: "ts",
    },
    outfile,
    bundle: true,
    format: "esm",
    platform: "node",
    logLevel: "warning",
  });
  core_ = await import(pathToFileURL(outfile).href);
  // A kept-alive socket the server closed while the bench wrote SQL fails on reuse before the
  // request leaves; sent again once on a fresh one (as benchSession does for node:http).
  const send = globalThis.fetch;
  const reused = new Set(["UND_ERR_SOCKET", "ECONNRESET", "EPIPE"]);
  globalThis.fetch = (input, init) =>
    send(input, init).catch((e) =>
      reused.has(e?.cause?.code) ? send(input, init) : Promise.reject(e),
    );
  return core_;
}

/** A person as the API sees them: their client (Bearer token), vaults API, id and email. */
export async function personApi(base, token) {
  const c = await vaultCore();
  const api = new c.ApiClient(base, async () => token);
  const vaults = c.vaultsApi(api);
  // An authenticated route first: the account exists before anyone invites it.
  await vaults.list();
  const { user } = await api.request({ method: "GET", path: "/api/auth/session", reads: ["user"] });
  return {
    api,
    vaults,
    sharing: c.sharingApi(api),
    userId: user.id,
    email: user.email,
  };
}

/** A person's registered sharing public key (their browser registers it at its first unlock). */
export async function sharingKeyOf(person, email, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const { publicKey } = await person.sharing.keyOf(email);
      return { x: publicKey.x, y: publicKey.y };
    } catch (e) {
      if (Date.now() > until) throw new Error(`no sharing key for ${email}: ${e.message}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/**
 * A new vault whose key the bench keeps (as core's createVault makes it: first copy and name bound
 * to a provisional id, then written again bound to the server's), returned opened.
 */
export async function keptVault(owner, publicKey, name) {
  const c = await vaultCore();
  const key = await c.newVaultKey();
  const copy = (vaultId) => ({ vaultId, keyVersion: 1, memberUserId: owner.userId });
  const { vault } = await owner.vaults.create(
    await c.sealVaultName(key, "", name),
    await c.wrapVaultKeyForMember(key, publicKey, copy("")),
  );
  await owner.vaults.wrap(
    vault.id,
    owner.userId,
    1,
    await c.wrapVaultKeyForMember(key, publicKey, copy(vault.id)),
  );
  const renamed = (await owner.vaults.rename(vault.id, await c.sealVaultName(key, vault.id, name)))
    .vault;
  return { vault: renamed, name, vaultKey: key, keys: await c.sharedVaultKeys(key, 1) };
}

/** The secrets and sites of bench entry `n`. */
export const entryInput = (n) => ({
  name: `Entry ${String(n).padStart(4, "0")}`,
  website: `site${n % 2000}.example.com`,
  url: null,
  secrets: {
    username: `user${n}@example.test`,
    password: `pw-${n}-${crypto.randomUUID()}`,
    notes: "",
    category: "",
    totp: "",
    address: `site${n % 2000}.example.com`,
  },
});

/** `count` entries added through the API by core's addVaultEntry, `parallel` at a time. */
export async function fillVault(person, opened, count, parallel = 8) {
  const c = await vaultCore();
  let next = 0;
  const ids = [];
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      for (let n = next++; n < count; n = next++)
        ids.push(await c.addVaultEntry(person.vaults, opened, entryInput(n)));
    }),
  );
  return ids;
}

/**
 * `who` invited by `owner` with `role`, accepted, and given a real copy of the key for `publicKey`
 * (a pair the bench made when the person has no browser: the server cannot tell the difference).
 */
export async function joinVault(owner, opened, who, role, publicKey) {
  const c = await vaultCore();
  let jwk = publicKey;
  if (!jwk) {
    const pair = await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, [
      "deriveBits",
    ]);
    const { x, y } = await crypto.subtle.exportKey("jwk", pair.publicKey);
    jwk = { x, y };
  }
  const { invitation } = await owner.vaults.invite(opened.vault.id, who.email, role);
  await who.vaults.accept(invitation.id);
  await c.wrapForMember(owner.vaults, opened, who.userId, jwk);
}

/**
 * `n` rows for `ownerId` (a user, or a vault when `vault` is set) straight into local D1, shaped
 * as seedEntries' (bench/lib/harness.mjs) and each with its own envelope, so a personal vault and
 * a shared one of the same size pull the same bytes.
 */
export function seedRows(worker, ownerId, n, name, { vault = false } = {}) {
  const now = Date.now() - n - 60_000;
  const stmts = [];
  let rows = [];
  for (let i = 0; i < n; i++) {
    const host = `site${i % 2000}.example.com`;
    const ts = new Date(now + i).toISOString();
    rows.push(
      `('${ownerId}-${i}','${ownerId}',${vault ? `'${ownerId}'` : "NULL"},'Entry ${i}','${host}','https://${host}/login','[]',3,'${b64(40)}','${b64(300)}','${hex(64)}','${hex(64)}','${hex(64)}','[]','${host}','${ts}','${ts}',${now + i})`,
    );
    if (rows.length === 50 || i === n - 1) {
      stmts.push(
        "INSERT INTO passwords (id,user_id,vault_id,name,website,url,tags,encryption_version,wrapped_item_key,encrypted_data,domain_hash,name_hash,username_hash,search_tokens,host,created_at,updated_at,change_seq) VALUES " +
          rows.join(","),
      );
      rows = [];
    }
  }
  stmts.push(
    `INSERT OR REPLACE INTO sync_clocks (user_id, clock) VALUES ('${ownerId}', ${now + n})`,
  );
  worker.sql(writeSql(name, stmts));
}

/** A GET read to its last byte over a kept-alive socket: milliseconds and bytes. */
export function timedGet(base, agent, token, path, accept = "application/json") {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.request(
      `${base}${path}`,
      // As a browser asks: the NDJSON pull is then gzipped by the runtime as it streams.
      { agent, headers: { authorization: `Bearer ${token}`, accept, "accept-encoding": "gzip" } },
      (res) => {
        const chunks = [];
        res.on("data", (d) => chunks.push(d));
        res.on("end", () => {
          const body = Buffer.concat(chunks);
          if (res.statusCode !== 200)
            return reject(
              new Error(`GET ${path}: ${res.statusCode} ${body.toString().slice(0, 200)}`),
            );
          const gz = res.headers["content-encoding"] === "gzip";
          resolve({
            timing: res.headers["server-timing"],
            ms: performance.now() - t0,
            bytes: body.length,
            body: gz ? gunzipSync(body) : body,
          });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end();
  });
}
