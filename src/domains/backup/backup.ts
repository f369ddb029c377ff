import { bindingOf, directoryBinding } from "../../db/shards";
import { distinctDatabases, migrationsOf, quoted, schemaOf } from "./databases";
import {
  DEFAULT_BUDGET,
  FORMAT,
  idFor,
  keys,
  PREFIX,
  sha256Hex,
  spender,
  timeOf,
  type BackupState,
  type Budget,
  type ChunkRef,
  type Cursor,
  type Manifest,
  type ObjectLine,
} from "./format";

/**
 * The scheduled backup (docs/operations.md, "Backup and restore"): every D1 database's rows and
 * every R2 object, copied to the backup bucket in chunks. One invocation does what its budget
 * allows and leaves its place in `state.json`; the next picks it up, so a deployment of any size is
 * backed up by a run of short invocations that each stay within a Worker's limits.
 *
 * A backup is read while the service runs: each page of rows is consistent, the whole is not one
 * instant across tables and databases. D1 Time Travel is the point-in-time tool; this one survives
 * the loss of the databases and buckets themselves.
 */

/** The R2 buckets whose objects a backup copies, by binding. */
export const BACKED_UP_BUCKETS = ["ATTACHMENTS"] as const;

/** Rows read a page at a time; a chunk closes at whichever bound comes first. */
const PAGE_ROWS = 100;
const CHUNK_ROWS = 1000;
const CHUNK_BYTES = 2 * 1024 * 1024;
const OBJECT_PAGE = 100;

export type BackupOptions = {
  now?: Date;
  budget?: Budget;
  /** Start a new backup when the newest began this long ago (default a day). */
  intervalHours?: number;
  /** Delete complete backups older than this, always keeping the newest (default 30). */
  retentionDays?: number;
  /** Start a new backup now, whatever the interval says (the admin route). */
  force?: boolean;
};

export type BackupProgress = {
  id: string | null;
  done: boolean;
  chunks: number;
  rows: number;
  objects: number;
  deleted: string[];
};

const encoder = new TextEncoder();

/** The backup ids in the bucket, oldest first. */
export async function listBackups(bucket: R2Bucket): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix: PREFIX, delimiter: "/", cursor });
    ids.push(
      ...page.delimitedPrefixes
        .map((p) => p.slice(PREFIX.length, -1))
        .filter((id) => !Number.isNaN(timeOf(id))),
    );
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return ids.sort();
}

export async function readJson<T>(bucket: R2Bucket, key: string): Promise<T | null> {
  const obj = await bucket.get(key);
  return obj ? ((await obj.json()) as T) : null;
}

async function begin(env: Record<string, unknown>, now: Date): Promise<BackupState> {
  const databases = [];
  for (const d of await distinctDatabases(env))
    databases.push({ ...d, ...(await schemaOf(bindingOf(env, d.binding))) });
  const id = idFor(now);
  return {
    format: FORMAT,
    id,
    started_at: now.toISOString(),
    migrations: await migrationsOf(bindingOf(env, directoryBinding(env))),
    databases,
    buckets: [...BACKED_UP_BUCKETS],
    chunks: [],
    counts: { rows: {}, objects: 0, object_bytes: 0 },
    cursor: { phase: "rows", db: 0, table: 0, after: 0, part: 0 },
  };
}

/** One step of the backup: continue the unfinished one, or start one when it is due; then retention. */
export async function runBackup(
  env: Record<string, unknown>,
  bucket: R2Bucket,
  opts: BackupOptions = {},
): Promise<BackupProgress> {
  const now = opts.now ?? new Date();
  const budget = spender(opts.budget ?? DEFAULT_BUDGET);
  const ids = await listBackups(bucket);
  const latest = ids.at(-1);
  let state = latest ? await readJson<BackupState>(bucket, keys(latest).state) : null;
  const due =
    !latest ||
    opts.force ||
    now.getTime() - timeOf(latest) >= (opts.intervalHours ?? 24) * 3600_000;
  if (!state && due) state = await begin(env, now);
  const progress: BackupProgress = {
    id: state?.id ?? latest ?? null,
    done: !state,
    chunks: 0,
    rows: 0,
    objects: 0,
    deleted: [],
  };
  if (state) {
    const before = { chunks: state.chunks.length, objects: state.counts.objects };
    const finished = await advance(env, bucket, state, budget);
    progress.chunks = state.chunks.length - before.chunks;
    progress.rows = state.chunks
      .slice(before.chunks)
      .reduce((n, c) => n + (c.kind === "rows" ? c.count : 0), 0);
    progress.objects = state.counts.objects - before.objects;
    if (finished) {
      const { cursor: _, ...rest } = state;
      const manifest: Manifest = { ...rest, finished_at: new Date().toISOString() };
      await bucket.put(keys(state.id).manifest, JSON.stringify(manifest), {
        httpMetadata: { contentType: "application/json" },
      });
      await bucket.delete(keys(state.id).state);
      progress.done = true;
    } else {
      await bucket.put(keys(state.id).state, JSON.stringify(state), {
        httpMetadata: { contentType: "application/json" },
      });
    }
  }
  if (progress.done && !budget.exhausted())
    progress.deleted = await retire(bucket, now, opts.retentionDays ?? 30, budget);
  return progress;
}

async function putChunk(
  bucket: R2Bucket,
  state: BackupState,
  ref: Omit<ChunkRef, "bytes" | "sha256">,
  lines: string[],
) {
  const bytes = encoder.encode(lines.join(""));
  await bucket.put(ref.key, bytes, { httpMetadata: { contentType: "application/x-ndjson" } });
  state.chunks.push({ ...ref, bytes: bytes.byteLength, sha256: await sha256Hex(bytes) });
}

/** Copies until the budget is spent or the backup is complete; true when complete. */
async function advance(
  env: Record<string, unknown>,
  bucket: R2Bucket,
  state: BackupState,
  budget: ReturnType<typeof spender>,
): Promise<boolean> {
  const k = keys(state.id);
  while (state.cursor.phase === "rows") {
    const c = state.cursor;
    const db = state.databases[c.db];
    if (!db) {
      state.cursor = { phase: "objects", bucket: 0, part: 0 };
      break;
    }
    const table = db.tables[c.table];
    if (!table) {
      state.cursor = { phase: "rows", db: c.db + 1, table: 0, after: 0, part: 0 };
      continue;
    }
    if (budget.exhausted()) return false;
    // One chunk: pages of rows in rowid order until a bound, the table's end or the budget.
    const d1 = bindingOf(env, db.binding);
    const lines: string[] = [];
    let bytes = 0;
    let after = c.after;
    let end = false;
    while (lines.length < CHUNK_ROWS && bytes < CHUNK_BYTES && !budget.exhausted()) {
      budget.spend();
      const { results } = await d1
        .prepare(
          `SELECT rowid AS "__backup_rowid", * FROM ${quoted(table)} WHERE rowid > ? ORDER BY rowid LIMIT ${PAGE_ROWS}`,
        )
        .bind(after)
        .all<Record<string, unknown>>();
      for (const { __backup_rowid: rowid, ...row } of results) {
        after = rowid as number;
        const line = `${JSON.stringify(row)}\n`;
        lines.push(line);
        bytes += line.length;
      }
      if (results.length < PAGE_ROWS) {
        end = true;
        break;
      }
    }
    if (lines.length > 0) {
      budget.spend();
      await putChunk(
        bucket,
        state,
        {
          key: k.rows(db.binding, table, c.part),
          kind: "rows",
          database: db.binding,
          table,
          count: lines.length,
        },
        lines,
      );
      const name = `${db.binding}.${table}`;
      state.counts.rows[name] = (state.counts.rows[name] ?? 0) + lines.length;
    }
    state.cursor = end
      ? { phase: "rows", db: c.db, table: c.table + 1, after: 0, part: 0 }
      : {
          phase: "rows",
          db: c.db,
          table: c.table,
          after,
          part: c.part + (lines.length > 0 ? 1 : 0),
        };
  }
  while (state.cursor.phase === "objects") {
    const c: Extract<Cursor, { phase: "objects" }> = state.cursor;
    if (budget.exhausted()) return false;
    const name = BACKED_UP_BUCKETS[c.bucket];
    if (!name) return true;
    const source = env[name] as R2Bucket;
    budget.spend();
    const page = await source.list({ limit: OBJECT_PAGE, cursor: c.list });
    const lines: string[] = [];
    for (const listed of page.objects) {
      budget.spend(2);
      const obj = await source.get(listed.key);
      if (!obj) continue; // deleted since the listing
      const body = await obj.arrayBuffer();
      await bucket.put(keys(state.id).object(name, obj.key), body, {
        httpMetadata: obj.httpMetadata,
        customMetadata: obj.customMetadata,
      });
      const line: ObjectLine = {
        bucket: name,
        key: obj.key,
        size: body.byteLength,
        sha256: await sha256Hex(body),
        etag: obj.etag,
        uploaded: obj.uploaded.toISOString(),
        http_metadata: obj.httpMetadata ?? {},
        custom_metadata: obj.customMetadata ?? {},
      };
      lines.push(`${JSON.stringify(line)}\n`);
      state.counts.objects++;
      state.counts.object_bytes += body.byteLength;
    }
    if (lines.length > 0)
      await putChunk(
        bucket,
        state,
        { key: k.objects(name, c.part), kind: "objects", count: lines.length },
        lines,
      );
    const part = c.part + (lines.length > 0 ? 1 : 0);
    state.cursor = page.truncated
      ? { phase: "objects", bucket: c.bucket, list: page.cursor, part }
      : { phase: "objects", bucket: c.bucket + 1, part };
  }
  return true;
}

/**
 * Retention: complete backups older than `days` are deleted, the newest complete one never (a
 * deployment whose backups stopped keeps its last). An unfinished backup older than that is
 * abandoned and deleted too. Deletion is budgeted like the rest and resumes next time.
 */
async function retire(
  bucket: R2Bucket,
  now: Date,
  days: number,
  budget: ReturnType<typeof spender>,
): Promise<string[]> {
  const ids = await listBackups(bucket);
  budget.spend();
  const cutoff = now.getTime() - days * 86_400_000;
  let newestComplete: string | undefined;
  for (const id of [...ids].reverse()) {
    budget.spend();
    if (await bucket.head(keys(id).manifest)) {
      newestComplete = id;
      break;
    }
  }
  const deleted: string[] = [];
  for (const id of ids) {
    if (timeOf(id) >= cutoff || id === newestComplete) continue;
    // The manifest first: a backup half deleted is never taken for a complete one.
    await bucket.delete(keys(id).manifest);
    let cursor: string | undefined;
    do {
      if (budget.exhausted()) return deleted;
      budget.spend(2);
      const page = await bucket.list({ prefix: `${PREFIX}${id}/`, cursor });
      if (page.objects.length > 0) await bucket.delete(page.objects.map((o) => o.key));
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor);
    deleted.push(id);
  }
  return deleted;
}
