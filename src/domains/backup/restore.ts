import {
  recoveryTimers,
  type RecoveryTimerNamespace,
} from "../../../durable-objects/recovery-timer";
import { directoryDb } from "../../db/client";
import { bindingOf, directoryBinding } from "../../db/shards";
import { rearmDeadManSwitches } from "../dead-man-switch";
import { rearmEmergencyContacts } from "../emergency";
import { AppError, conflict, ErrorCode, notFound, validationError } from "../../lib/errors";
import { readJson } from "./backup";
import { distinctDatabases, migrationsOf, quoted, schemaOf } from "./databases";
import { keys, ndjson, sha256Hex, type Manifest, type ObjectLine } from "./format";

/**
 * Rebuilding a deployment from a backup (`npm run restore`, docs/operations.md), in numbered steps
 * the caller drives one request at a time, each within a Worker's limits:
 *
 *   0        check the target (same shards bound, same migrations), drop its triggers, empty every
 *            table and every backed-up bucket (answers 0 again until the buckets are empty);
 *   1 … n    one chunk of the manifest each: rows into their database, or objects into their bucket;
 *   n + 1    recreate the triggers.
 *
 * Every step can be repeated (rows go in with INSERT OR REPLACE, objects are overwritten), so a
 * restore cut off anywhere goes on from the step that failed. The triggers are off while rows go in:
 * they keep derived counters (vault_counters), which the backup holds as they were. The recovery
 * timers, Durable Object alarms, are armed again from the restored rows.
 */

export type RestoreProgress = {
  step: number;
  next: number | null;
  total_steps: number;
  rows: number;
  objects: number;
};

/** Statements per D1 batch: each is one row, within D1's 100 bound parameters a statement. */
const BATCH = 50;
const WIPE_PAGES = 20;

async function manifestOf(bucket: R2Bucket, id: string): Promise<Manifest> {
  const manifest = await readJson<Manifest>(bucket, keys(id).manifest);
  if (!manifest) throw notFound("Complete backup");
  return manifest;
}

async function chunkText(bucket: R2Bucket, key: string, sha256: string): Promise<string> {
  const obj = await bucket.get(key);
  if (!obj) throw conflict(`The backup is missing ${key}`);
  const bytes = await obj.arrayBuffer();
  if ((await sha256Hex(bytes)) !== sha256)
    throw conflict(`The backup's ${key} does not match its checksum`);
  return new TextDecoder().decode(bytes);
}

async function prepare(env: Record<string, unknown>, manifest: Manifest): Promise<boolean> {
  const missing = manifest.databases
    .flatMap((d) => [d.binding, ...d.aliases])
    .filter((name) => {
      try {
        bindingOf(env, name);
        return false;
      } catch {
        return true;
      }
    });
  if (missing.length > 0)
    throw validationError(
      "The backup's databases are not all bound here",
      missing.map((m) => ({ field: m, message: "is not bound" })),
    );
  const have = await migrationsOf(bindingOf(env, directoryBinding(env)));
  if (have.join("\n") !== manifest.migrations.join("\n")) {
    throw conflict(
      `This deployment's migrations (${have.at(-1) ?? "none"}) differ from the backup's (${manifest.migrations.at(-1) ?? "none"}): migrate to the same release first`,
    );
  }
  for (const { binding } of await distinctDatabases(env)) {
    const d1 = bindingOf(env, binding);
    const { tables, triggers } = await schemaOf(d1);
    await d1.batch([
      ...triggers.map((t) => d1.prepare(`DROP TRIGGER IF EXISTS ${quoted(t.name)}`)),
      ...tables.map((t) => d1.prepare(`DELETE FROM ${quoted(t)}`)),
    ]);
  }
  for (const name of manifest.buckets) {
    const target = env[name] as R2Bucket;
    for (let i = 0; i < WIPE_PAGES; i++) {
      const page = await target.list({ limit: 1000 });
      if (page.objects.length > 0) await target.delete(page.objects.map((o) => o.key));
      if (!page.truncated) break;
      if (i === WIPE_PAGES - 1) return false;
    }
  }
  return true;
}

async function restoreRows(
  env: Record<string, unknown>,
  database: string,
  table: string,
  rows: Record<string, unknown>[],
) {
  const d1 = bindingOf(env, database);
  const statements = rows.map((row) => {
    const columns = Object.keys(row);
    return d1
      .prepare(
        `INSERT OR REPLACE INTO ${quoted(table)} (${columns.map(quoted).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`,
      )
      .bind(...columns.map((c) => row[c]));
  });
  for (let i = 0; i < statements.length; i += BATCH) await d1.batch(statements.slice(i, i + BATCH));
}

/**
 * Timers are Durable Object alarms, not rows: the restored switches and emergency contacts have
 * theirs armed again from their rows, chunk by chunk, so a restore leaves nothing that never fires.
 */
async function rearmTimers(
  env: Record<string, unknown>,
  table: string,
  rows: Record<string, unknown>[],
) {
  const timers = () => recoveryTimers(env.RECOVERY_TIMER as RecoveryTimerNamespace);
  if (table === "dead_man_switches")
    await rearmDeadManSwitches(
      directoryDb(env),
      timers(),
      rows.map((r) => String(r.user_id)),
    );
  if (table === "emergency_contacts")
    await rearmEmergencyContacts(
      directoryDb(env),
      timers(),
      rows.map((r) => String(r.id)),
    );
}

async function restoreObjects(
  env: Record<string, unknown>,
  bucket: R2Bucket,
  id: string,
  lines: ObjectLine[],
) {
  for (const o of lines) {
    const stored = await bucket.get(keys(id).object(o.bucket, o.key));
    if (!stored) throw conflict(`The backup is missing the object ${o.key}`);
    const body = await stored.arrayBuffer();
    if ((await sha256Hex(body)) !== o.sha256)
      throw conflict(`The backup's copy of ${o.key} does not match its checksum`);
    await (env[o.bucket] as R2Bucket).put(o.key, body, {
      httpMetadata: o.http_metadata,
      customMetadata: o.custom_metadata,
    });
  }
}

export async function restoreStep(
  env: Record<string, unknown>,
  bucket: R2Bucket,
  id: string,
  step: number,
  confirmWipe: boolean,
): Promise<RestoreProgress> {
  const manifest = await manifestOf(bucket, id);
  const total = manifest.chunks.length + 2;
  if (step >= total)
    throw validationError("No such step", [{ field: "step", message: `must be below ${total}` }]);
  const progress: RestoreProgress = {
    step,
    next: step + 1,
    total_steps: total,
    rows: 0,
    objects: 0,
  };
  if (step === 0) {
    if (!confirmWipe)
      throw validationError("Restoring replaces every row and object of this deployment", [
        { field: "confirm_wipe", message: "must be true" },
      ]);
    if (!(await prepare(env, manifest))) progress.next = 0;
  } else if (step <= manifest.chunks.length) {
    const chunk = manifest.chunks[step - 1]!;
    const text = await chunkText(bucket, chunk.key, chunk.sha256);
    if (chunk.kind === "rows") {
      const rows = ndjson<Record<string, unknown>>(text);
      await restoreRows(env, chunk.database!, chunk.table!, rows);
      await rearmTimers(env, chunk.table!, rows);
      progress.rows = rows.length;
    } else {
      const lines = ndjson<ObjectLine>(text);
      await restoreObjects(env, bucket, id, lines);
      progress.objects = lines.length;
    }
  } else {
    for (const db of manifest.databases) {
      const d1 = bindingOf(env, db.binding);
      const create = db.triggers.map((t) =>
        d1.prepare(
          t.sql.replace(
            /^\s*CREATE\s+TRIGGER\s+(?!IF\s+NOT\s+EXISTS)/i,
            "CREATE TRIGGER IF NOT EXISTS ",
          ),
        ),
      );
      if (create.length > 0) await d1.batch(create);
    }
    progress.next = null;
  }
  return progress;
}

/** What the restore script shows before it starts: the manifest without its chunk list. */
export async function describeBackup(bucket: R2Bucket, id: string) {
  const m = await manifestOf(bucket, id);
  return {
    id: m.id,
    started_at: m.started_at,
    finished_at: m.finished_at,
    migrations: m.migrations.length,
    databases: m.databases.map((d) => [d.binding, ...d.aliases]),
    counts: m.counts,
    chunks: m.chunks.length,
  };
}

export const backupUnavailable = () =>
  new AppError(ErrorCode.SERVICE_UNAVAILABLE, "No backup bucket is bound (BACKUP_BUCKET)");
