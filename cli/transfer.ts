/**
 * `vault export` and `vault import` (docs/cli.md, "Export, import and attachments"): the vault's file written
 * and read as the web app's Export and Import page does it, with the same code (core/importers).
 *
 * Export: every entry opened by the agent and written as the web app's vault file (the default:
 * encrypted with a file password, only the format header in the clear; the server's rule for an
 * encrypted export first, as the web app's), or in plain text for leaving, as JSON (the file's
 * body), CSV (the web app's plain CSV) or a CXF document (the FIDO Credential Exchange Format,
 * made by the same core function as the web app's CXF export, which encrypts it; here it is
 * written as the format is, for another manager to read). A plain file is one anyone who gets it
 * can read, so: the server's rule for a plain export first (a sign-in of at most 300 s, a
 * registered device; it is in the activity log) and a question on a terminal unless --yes. Every form: a new file of mode 0600
 * created exclusively (an existing file is kept unless --force).
 *
 * Import: the file is read here, before anything is sent; a file that cannot be read fails the
 * command and the server receives nothing. The agent seals each entry as the web app seals an
 * imported one and sends them in batches of 50 (POST /api/passwords/import, each batch under an
 * idempotency key of its own, so a batch sent twice is stored once).
 */
import { closeSync, openSync, readFileSync, renameSync, statSync, writeSync } from "node:fs";
import {
  cxfCredentials,
  cxfDocument,
  FORMAT_LABELS,
  ImportFormatError,
  isServerExport,
  kindSummary,
  isVaultFileBody,
  itemProblem,
  MIN_FILE_PASSWORD,
  openIfProtected,
  PasswordNeededError,
  plainCsv,
  problemOf,
  readCxf,
  readImportFile,
  readOwnExport,
  sealedVaultFile,
  vaultFileBody,
  WrongPasswordError,
  type ImportFormat,
  type ImportProvider,
  type Skipped,
} from "../core/importers";
import { ask } from "./agent-client";
import { CliError, EXIT, usage } from "./errors";
import { confirm, passphraseFromFd, promptPassphrase } from "./prompt";
import { requireSignIn } from "./state";
import type { ImportRow } from "./vault-view";

type Opts = Record<string, string | boolean | undefined>;
const str = (v: Opts[string]) => (typeof v === "string" ? v : undefined);

/** As the web app's import page: a batch per request, and at most this many entries a file. */
export const BATCH = 50;
const MAX_ENTRIES = 5000;
const MAX_FILE_BYTES = 12 * 1024 * 1024;

export type ExportResult = {
  format: "vault" | "json" | "csv" | "cxf";
  file: string | null;
  entries: number;
  unreadable: number;
  /** CXF only: what the format does not carry, said after the export ("" when nothing). */
  leftOut?: string;
};

const EXPORT_FORMATS = ["vault", "json", "csv", "cxf"] as const;

const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * The vault as a CXF document, as the web app builds it (core cxfDocument): the server's host
 * names the exporter, the signed-in account the items' owner. Passkeys already used to sign in
 * (the format carries a counter of zero only) and cards and identities are left out, and said.
 */
async function cxfText(items: Parameters<typeof cxfDocument>[0]) {
  const signIn = requireSignIn();
  const { doc, entries, usedPasskeys, notCarried } = await cxfDocument(items, {
    rpId: new URL(signIn.server).hostname,
    userId: signIn.user.id,
    email: signIn.user.email,
  });
  const left = [
    usedPasskeys
      ? `${count(usedPasskeys, "passkey")} already used to sign in (CXF carries only passkeys whose counter is still zero)`
      : "",
    notCarried
      ? `${count(notCarried, "card or identity", "cards and identities")} (no CXF item type here yet: --format vault or json carries them)`
      : "",
  ].filter(Boolean);
  return { text: `${JSON.stringify(doc, null, 2)}\n`, entries, leftOut: left.join("; ") };
}

/**
 * The file password: from a descriptor, or typed twice on a terminal (never an argument, which
 * every user of the machine can read). At least MIN_FILE_PASSWORD characters, as the web app asks.
 */
async function filePassword(o: Opts): Promise<string> {
  const fd = str(o["password-fd"]);
  let password: string;
  if (fd !== undefined) password = passphraseFromFd(fd);
  else if (process.stdin.isTTY) {
    password = await promptPassphrase("File password: ");
    if ((await promptPassphrase("File password again: ")) !== password)
      throw new CliError("The two passwords differ: not exported", EXIT.FAILED);
  } else throw usage("No terminal to type the file password at: give it with --password-fd <n>");
  if (password.length < MIN_FILE_PASSWORD)
    throw usage(`Choose a file password of at least ${MIN_FILE_PASSWORD} characters`);
  return password;
}

export async function exportVault(o: Opts): Promise<{ result: ExportResult; text: string | null }> {
  const format = (str(o.format) ?? "vault") as ExportResult["format"];
  if (!EXPORT_FORMATS.includes(format))
    throw usage(
      "--format is vault (encrypted with a file password), json, csv or cxf (plain text)",
    );
  const plain = format !== "vault";
  if (!plain && o.yes) throw usage("--yes is for the plain formats: the vault format asks nothing");
  const file = str(o.output) ?? null;
  if (o.json && !file) throw usage("--json reports on the file: give --output");
  if (file && !o.force && exists(file))
    throw new CliError(`${file} exists: not overwritten (--force replaces it)`, EXIT.FAILED);
  const password = plain ? null : await filePassword(o);
  if (plain && process.stdin.isTTY && !o.yes) {
    const sure = await confirm(
      `Every password of the vault, in plain text, to ${file ?? "standard output"}: anyone who gets it can read them. Go on?`,
    );
    if (!sure) throw new CliError("Not exported", EXIT.FAILED);
  }
  // Each asks the server's rule for its kind of file (and puts it in the activity log) first.
  await ask({ op: plain ? "exportPlain" : "exportSealed" });
  const { items, unreadable } = (await ask({ op: "items" })) as unknown as {
    items: Parameters<typeof plainCsv>[0];
    unreadable: number;
  };
  const cxf = format === "cxf" ? await cxfText(items) : null;
  const doc =
    format === "csv" || cxf
      ? null
      : password === null
        ? vaultFileBody(items)
        : await sealedVaultFile(items, password);
  const text = cxf?.text ?? (doc ? `${JSON.stringify(doc, null, 2)}\n` : plainCsv(items));
  const result: ExportResult = {
    format,
    file,
    entries: cxf?.entries ?? items.length,
    unreadable,
    ...(cxf ? { leftOut: cxf.leftOut } : {}),
  };
  if (!file) return { result, text };
  writeNew(file, text, o.force === true);
  return { result, text: null };
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * A new file of mode 0600 from its creation (never a moment readable by others), created
 * exclusively so a file made meanwhile is not overwritten; with --force a temporary file renamed
 * over the old one, so the old one is whole until the new one is.
 */
export function writeNew(path: string, text: string | Uint8Array, force: boolean) {
  const target = force ? `${path}.${process.pid}.tmp` : path;
  let fd: number;
  try {
    fd = openSync(target, "wx", 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST")
      throw new CliError(`${path} exists: not overwritten (--force replaces it)`, EXIT.FAILED);
    throw new CliError(`Cannot write ${path}: ${(e as Error).message}`, EXIT.FAILED);
  }
  try {
    writeSync(fd, typeof text === "string" ? Buffer.from(text) : text);
  } finally {
    closeSync(fd);
  }
  if (force) renameSync(target, path);
}

export type ImportReport = {
  file: string;
  format: string;
  imported: number;
  /** The entries read, by kind ("2 logins, 1 card; kept as the nearest kind: …"); "" for this vault's own file. */
  kinds: string;
  skipped: Skipped[];
  errors: string[];
};

const FORMATS = Object.keys(FORMAT_LABELS) as ImportFormat[];

/** The file's entries, read here, and those it holds that cannot be imported (with why). */
async function readRows(
  path: string,
  o: Opts,
): Promise<{ rows: ImportRow[]; skipped: Skipped[]; provider: ImportProvider; label: string }> {
  const chosen = str(o.format);
  if (chosen !== undefined && !FORMATS.includes(chosen as ImportFormat))
    throw usage(`--format is one of ${FORMATS.join(", ")} (or left out: judged from the file)`);
  let bytes: Uint8Array;
  try {
    if (statSync(path).size > MAX_FILE_BYTES) throw new Error("larger than 12 MB");
    bytes = new Uint8Array(readFileSync(path));
  } catch (e) {
    throw usage(`Cannot read ${path}: ${(e as Error).message}`);
  }
  const fd = str(o["password-fd"]);
  const password = fd !== undefined ? passphraseFromFd(fd) : undefined;
  try {
    const opened = await openIfProtected(bytes, password);
    // Not a zip (KeePass, 1Password's .1pux begin with "PK"): perhaps this vault's own file, or CXF.
    const text = opened[0] === 0x50 ? null : new TextDecoder().decode(opened);
    const own = text === null ? null : readOwnExport(text);
    if (own && isServerExport(own))
      throw new CliError(
        `${path} is the server's version 1 export (sealed under one account's key): import it in the web app, or export the vault again`,
        EXIT.FAILED,
      );
    if (own && isVaultFileBody(own)) {
      const rows: ImportRow[] = [];
      const skipped: Skipped[] = [];
      for (const item of own.items) {
        const problem = itemProblem(item);
        if (problem) skipped.push({ name: String(item.name ?? "(no name)"), reason: problem });
        else rows.push({ own: item });
      }
      return { rows, skipped, provider: "generic", label: "This vault's export" };
    }
    const cxf = text === null ? null : readCxf(text);
    if (cxf) {
      const { entries, skipped } = await cxfCredentials(cxf);
      const rows: ImportRow[] = [];
      for (const { credential, passkeys } of entries) {
        const problem = problemOf(credential, passkeys.length);
        if (problem) skipped.push({ name: credential.name || "(no name)", reason: problem });
        else rows.push({ credential, passkeys });
      }
      return { rows, skipped, provider: "generic", label: "Credential Exchange Format (CXF)" };
    }
    const parsed = await readImportFile(opened, {
      format: chosen as ImportFormat | undefined,
      password,
    });
    const rows: ImportRow[] = [];
    const skipped: Skipped[] = [...parsed.skipped];
    for (const c of parsed.credentials) {
      const problem = problemOf(c, c.passkeys?.length);
      if (problem) skipped.push({ name: c.name || "(no name)", reason: problem });
      else rows.push({ credential: c, ...(c.passkeys ? { passkeys: c.passkeys } : {}) });
    }
    return { rows, skipped, provider: parsed.provider, label: FORMAT_LABELS[parsed.format] };
  } catch (e) {
    if (e instanceof PasswordNeededError)
      throw usage(
        `${path} is a password-protected ${e.what}: give its password with --password-fd <n>`,
      );
    if (e instanceof WrongPasswordError) throw usage(`${path}: ${e.message}`);
    if (e instanceof ImportFormatError || e instanceof SyntaxError)
      throw new CliError(
        `${path} cannot be read${chosen ? ` as ${chosen}` : ""}: ${e.message}`,
        EXIT.FAILED,
      );
    throw e;
  }
}

/** What one request to the agent may carry (agent.ts reads a request of at most 1,000,000 characters). */
const REQUEST_CHARS = 900_000;

/**
 * Batches of at most BATCH entries, as the web app sends them, and of at most REQUEST_CHARS of
 * JSON, with the index of each batch's first entry. An entry too large for one request alone is
 * skipped with the reason.
 */
function* batches(rows: ImportRow[], skipped: Skipped[]): Generator<[number, ImportRow[]]> {
  let start = 0;
  let batch: ImportRow[] = [];
  let chars = 0;
  for (const [i, row] of rows.entries()) {
    const size = JSON.stringify(row).length;
    if (size > REQUEST_CHARS) {
      const name = "own" in row ? row.own.name : row.credential.name;
      skipped.push({ name, reason: "larger than 900 kB: import this entry in the web app" });
      continue;
    }
    if (batch.length === BATCH || chars + size > REQUEST_CHARS) {
      yield [start, batch];
      batch = [];
      chars = 0;
    }
    if (batch.length === 0) start = i;
    batch.push(row);
    chars += size;
  }
  if (batch.length) yield [start, batch];
}

export async function importFile(
  path: string,
  o: Opts,
  progress: (done: number, total: number) => void,
): Promise<ImportReport> {
  const { rows, skipped, provider, label } = await readRows(path, o);
  if (rows.length + skipped.length === 0)
    throw new CliError(`${path} holds no entries`, EXIT.FAILED);
  if (rows.length > MAX_ENTRIES)
    throw new CliError(
      `${path} holds ${rows.length} entries; at most ${MAX_ENTRIES} are imported at once`,
      EXIT.FAILED,
    );
  const read = rows.flatMap((r) => ("credential" in r ? [r.credential] : []));
  const report: ImportReport = {
    file: path,
    format: label,
    imported: 0,
    kinds: read.length ? kindSummary(read) : "",
    skipped,
    errors: [],
  };
  const run = crypto.randomUUID();
  let n = 0;
  for (const [i, batch] of batches(rows, report.skipped)) {
    const range = `Entries ${i + 1} to ${i + batch.length}`;
    try {
      const r = await ask({
        op: "importBatch",
        rows: batch,
        provider,
        key: `import-${run}-${n++}`,
      });
      report.imported += r.imported as number;
      report.errors.push(...(r.errors as string[]).map((e) => `${range}: ${e}`));
    } catch (e) {
      // The rest would be refused the same way (a sign-in too old, the server gone): stop, say where.
      report.errors.push(`${range}: ${(e as Error).message}`);
      break;
    }
    progress(i + batch.length, rows.length);
  }
  await ask({ op: "sync" });
  return report;
}
