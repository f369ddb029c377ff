import {
  createExecutionContext,
  createScheduledController,
  env,
  waitOnExecutionContext,
} from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { legacyTotpSecretsColumn } from "../../src/domains/entry-totp";
import { identityAliasKeysColumn } from "../../src/domains/identities";
import { mailSecretsColumn } from "../../src/domains/integrations";
import { sessionShareCredentialsColumn } from "../../src/domains/session-shares";
import { twoFactorSecretsColumn } from "../../src/domains/two-factor";
import type { SealedColumn } from "../../src/db/reseal";
import { loadConfig } from "../../src/env";
import { dataKeyId, seal, unseal } from "../../src/lib/crypto";

// docs/decisions/hardening.md, "Hardening: limits, abuse and failure" item 12, D10: data keys rotate; previous keys open by key id; the cron re-seals.
const newKey = () => btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
const kidOf = (sealed: string) => (JSON.parse(sealed) as { kid: string }).kid;
const now = () => new Date().toISOString();

type Seeded = { spec: SealedColumn; row: Record<string, string>; plaintext: string };

/** One row in each sealed column, sealed under `key` with the column's own AAD. */
async function seedAll(key: string): Promise<Seeded[]> {
  const userId = crypto.randomUUID();
  const id = () => crypto.randomUUID();
  const out: Seeded[] = [];
  const put = async (
    spec: SealedColumn,
    row: Record<string, string>,
    plaintext: string,
    insert: (sealed: string) => D1PreparedStatement,
  ) => {
    const sealed = await seal(key, plaintext, spec.aad(row));
    await insert(sealed).run();
    out.push({ spec, row, plaintext });
  };
  for (const provider of ["mailx", "imap"]) {
    const row = { id: id(), user_id: userId, provider };
    await put(mailSecretsColumn, row, `{"secret":"${provider}"}`, (s) =>
      env.DB.prepare(
        "INSERT INTO mail_integrations (id, user_id, provider, email, secret, connected_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      ).bind(row.id, userId, provider, `${provider}@example.test`, s, now(), now()),
    );
  }
  const share = { id: id(), owner_id: userId };
  await put(sessionShareCredentialsColumn, share, '{"u":"alice","p":"hunter2"}', (s) =>
    env.DB.prepare(
      "INSERT INTO session_shares (id, owner_id, account_id, service_name, login_url, token_hash, sealed_credentials, access_type, login_method, max_viewers, watermark_enabled, status, duration_minutes, estimated_cost_cents, expires_at, created_at, updated_at) VALUES (?, ?, ?, 'Site', 'https://site.test', ?, ?, 'view', 'automated', 1, 0, 'scheduled', 30, 5, ?, ?, ?)",
    ).bind(share.id, userId, id(), id(), s, now(), now(), now()),
  );
  const totp = { password_id: id(), user_id: userId };
  await put(legacyTotpSecretsColumn, totp, "JBSWY3DPEHPK3PXP", (s) =>
    env.DB.prepare(
      "INSERT INTO password_totp (password_id, user_id, zero_trust, secret_sealed, algorithm, digits, period, created_at, updated_at) VALUES (?, ?, 0, ?, 'SHA1', 6, 30, ?, ?)",
    ).bind(totp.password_id, userId, s, now(), now()),
  );
  const tf = { user_id: userId, enrollment_id: id() };
  await put(twoFactorSecretsColumn, tf, "KRSXG5CTMVRXEZLU", (s) =>
    env.DB.prepare(
      "INSERT INTO two_factor (user_id, enrollment_id, secret_sealed, created_at) VALUES (?, ?, ?, ?)",
    ).bind(userId, tf.enrollment_id, s, now()),
  );
  const ident = { id: id(), user_id: userId };
  await put(identityAliasKeysColumn, ident, "alias-api-key", (s) =>
    env.DB.prepare(
      "INSERT INTO identities (id, user_id, status, alias_key_sealed, created_at, updated_at) VALUES (?, ?, 'active', ?, ?, ?)",
    ).bind(ident.id, userId, s, now(), now()),
  );
  return out;
}

const stored = (s: Seeded) =>
  env.DB.prepare(`SELECT ${s.spec.column} AS v FROM ${s.spec.table} WHERE ${s.spec.key} = ?`)
    .bind(s.row[s.spec.key])
    .first<{ v: string }>()
    .then((r) => r!.v);

async function runCron(vars: Record<string, unknown>) {
  const ctx = createExecutionContext();
  await worker.scheduled!(createScheduledController(), vars as typeof env, ctx);
  await waitOnExecutionContext(ctx);
}

describe("data key rotation", () => {
  it("seals under the current key, opens a value sealed under a previous key by its id, refuses an unknown id", async () => {
    const [current, old, unknown] = [newKey(), newKey(), newKey()];
    const keys = loadConfig({
      ...env,
      DATA_ENCRYPTION_KEY: current,
      DATA_ENCRYPTION_KEYS_PREVIOUS: `${old}, ${newKey()}`,
    }).dataKeys;
    expect(keys[0]).toBe(current);
    expect(kidOf(await seal(keys, "x", "aad"))).toBe(await dataKeyId(current));
    expect(await unseal(keys, await seal(old, "from before", "aad"), "aad")).toBe("from before");
    await expect(unseal(keys, await seal(unknown, "lost", "aad"), "aad")).rejects.toThrow(
      "unknown-key-id",
    );
    await expect(unseal(current, await seal(old, "x", "aad"), "aad")).rejects.toThrow(
      "unknown-key-id",
    );
  });

  it("refuses a malformed DATA_ENCRYPTION_KEYS_PREVIOUS", () => {
    expect(() => loadConfig({ ...env, DATA_ENCRYPTION_KEYS_PREVIOUS: "c2hvcnQ=" })).toThrow(
      "Service misconfigured",
    );
  });

  it("the cron re-seals every sealed column under the current key id; the values open with the current key alone", async () => {
    const old = newKey();
    const current = newKey();
    const seeded = await seedAll(old);
    const stranger = await seedAll(newKey());
    await runCron({ ...env, DATA_ENCRYPTION_KEY: current, DATA_ENCRYPTION_KEYS_PREVIOUS: old });
    const currentId = await dataKeyId(current);
    for (const s of seeded) {
      const value = await stored(s);
      expect(kidOf(value), `${s.spec.table}.${s.spec.column}`).toBe(currentId);
      expect(await unseal(current, value, s.spec.aad(s.row))).toBe(s.plaintext);
    }
    // Values under a key id nobody configured are left as they are (and still refuse to open).
    for (const s of stranger) {
      const value = await stored(s);
      expect(kidOf(value)).not.toBe(currentId);
      await expect(unseal([current, old], value, s.spec.aad(s.row))).rejects.toThrow(
        "unknown-key-id",
      );
    }
  });

  it("without previous keys the cron changes nothing", async () => {
    const seeded = await seedAll(env.DATA_ENCRYPTION_KEY as string);
    const before = await Promise.all(seeded.map(stored));
    await runCron({ ...env });
    expect(await Promise.all(seeded.map(stored))).toEqual(before);
  });
});
