import type { DatabaseInfo } from "./databases";

/**
 * The layout of one backup in the backup bucket (docs/operations.md, "Backup and restore"):
 *
 *   backups/<id>/manifest.json                       written last: a backup without one is unfinished
 *   backups/<id>/state.json                          the unfinished backup's progress (deleted at the end)
 *   backups/<id>/rows/<binding>/<table>/<n>.ndjson   one row a line, a JSON object of column → value
 *   backups/<id>/objects/<bucket>/<n>.ndjson         one R2 object a line: key, size, SHA-256, metadata
 *   backups/<id>/r2/<bucket binding>/<key>           the object's bytes as stored (ciphertext)
 *
 * `<id>` is the start time, `2026-11-27T03-17-00-000Z`: ids sort by time and name their age.
 */
export const FORMAT = 1;
export const PREFIX = "backups/";

export type ChunkRef = {
  key: string;
  kind: "rows" | "objects";
  /** For rows: the database's binding in the manifest and the table. */
  database?: string;
  table?: string;
  count: number;
  bytes: number;
  /** Hex SHA-256 of the chunk's bytes: a restore refuses a chunk that does not match. */
  sha256: string;
};

export type ObjectLine = {
  bucket: string;
  key: string;
  size: number;
  sha256: string;
  etag: string;
  uploaded: string;
  http_metadata: R2HTTPMetadata;
  custom_metadata: Record<string, string>;
};

export type Manifest = {
  format: typeof FORMAT;
  id: string;
  started_at: string;
  finished_at: string;
  /** The directory's migrations when the backup began: the schema a restore target must have. */
  migrations: string[];
  databases: DatabaseInfo[];
  /** The R2 buckets copied, by binding name. */
  buckets: string[];
  chunks: ChunkRef[];
  counts: { rows: Record<string, number>; objects: number; object_bytes: number };
};

/** Where an unfinished backup stopped: the next page of rows, or the next page of a bucket's objects. */
export type Cursor =
  | { phase: "rows"; db: number; table: number; after: number; part: number }
  | { phase: "objects"; bucket: number; list?: string; part: number };

export type BackupState = Omit<Manifest, "finished_at"> & { cursor: Cursor };

export const idFor = (at: Date) => at.toISOString().replace(/[:.]/g, "-");
/** The start time an id names, or NaN for a name that is not an id. */
export function timeOf(id: string): number {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2})-(\d{2})-(\d{2})-(\d{3})Z$/.exec(id);
  return m ? Date.parse(`${m[1]}:${m[2]}:${m[3]}.${m[4]}Z`) : NaN;
}

export const keys = (id: string) => ({
  manifest: `${PREFIX}${id}/manifest.json`,
  state: `${PREFIX}${id}/state.json`,
  rows: (binding: string, table: string, part: number) =>
    `${PREFIX}${id}/rows/${binding}/${table}/${String(part).padStart(6, "0")}.ndjson`,
  objects: (bucket: string, part: number) =>
    `${PREFIX}${id}/objects/${bucket}/${String(part).padStart(6, "0")}.ndjson`,
  object: (bucket: string, key: string) => `${PREFIX}${id}/r2/${bucket}/${key}`,
});

export async function sha256Hex(bytes: ArrayBuffer | Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** NDJSON lines back into values; the last line ends with a newline like every other. */
export const ndjson = <T>(text: string): T[] =>
  text
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as T);

/** The budget of one invocation: storage operations and wall time (docs/operations.md). */
export type Budget = { ops: number; ms: number };
export const DEFAULT_BUDGET: Budget = { ops: 400, ms: 20_000 };

export function spender(budget: Budget) {
  const start = Date.now();
  let ops = 0;
  return {
    spend: (n = 1) => void (ops += n),
    exhausted: () => ops >= budget.ops || Date.now() - start >= budget.ms,
  };
}
