import { ImportFormatError } from "./model";

/**
 * CSV as RFC 4180 describes it, plus what real exports do: a UTF-8 byte-order mark, LF or CRLF line
 * ends, quoted fields spanning lines, and blank lines between records. With `backslash`, a `\"`
 * inside a quoted field is a literal quote (some exporters, 1Password 7 among them, escape quotes so
 * instead of doubling them).
 */
export function parseCsv(text: string, backslash = false): string[][] {
  return scan(text, backslash).rows;
}

/** Where an unquoted field's run of characters ends. */
const STOP = /[,\r\n]/g;

/** `malformed`: a closing quote was followed by something other than a delimiter or a line end. */
function scan(text: string, backslash: boolean): { rows: string[][]; malformed: boolean } {
  let malformed = false;
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let i = 0;
  const endRow = () => {
    row.push(field);
    if (!(row.length === 1 && row[0] === "")) rows.push(row);
    row = [];
    field = "";
  };
  while (i < src.length) {
    const ch = src[i];
    if (quoted) {
      if (ch !== '"') {
        // The run up to the next quote is the field's, taken at once (a 100,000-row file is
        // millions of characters); with `backslash`, a quote after a backslash is a literal one.
        const q = src.indexOf('"', i);
        const end = q < 0 ? src.length : q;
        if (backslash && q > i && src[q - 1] === "\\") {
          field += `${src.slice(i, q - 1)}"`;
          i = q + 1;
        } else {
          field += src.slice(i, end);
          i = end;
        }
        continue;
      }
      if (src[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      quoted = false;
      i++;
      if (i < src.length && !",\r\n".includes(src[i])) malformed = true;
      continue;
    }
    if (ch === '"' && field === "") {
      quoted = true;
      i++;
    } else if (ch === ",") {
      row.push(field);
      field = "";
      i++;
    } else if (ch === "\r" || ch === "\n") {
      endRow();
      i += ch === "\r" && src[i + 1] === "\n" ? 2 : 1;
    } else {
      STOP.lastIndex = i;
      const end = STOP.exec(src)?.index ?? src.length;
      field += src.slice(i, end);
      i = end;
    }
  }
  if (quoted) throw new ImportFormatError("The CSV file ends inside a quoted field");
  if (field !== "" || row.length > 0) endRow();
  return { rows, malformed };
}

/**
 * The rows, read by RFC 4180; when that fails (a quote left open, or rows wider than the header)
 * and the file holds backslash-escaped quotes, read again treating them as literal quotes, and
 * keep that reading when it is consistent.
 */
function readRows(text: string): string[][] {
  const good = (r: { rows: string[][]; malformed: boolean }) =>
    !r.malformed && r.rows.every((row) => row.length <= r.rows[0].length);
  let plain: { rows: string[][]; malformed: boolean } | null = null;
  try {
    plain = scan(text, false);
  } catch (err) {
    if (!text.includes('\\"')) throw err;
  }
  if (plain && (good(plain) || !text.includes('\\"'))) return plain.rows;
  try {
    const escaped = scan(text, true);
    if (good(escaped) || !plain) return escaped.rows;
  } catch (err) {
    if (!plain) throw err;
  }
  return plain!.rows;
}

/**
 * Rows keyed by their header, header names compared case-insensitively and trimmed; `names` are
 * the headers as written (a column kept as a field keeps its own spelling).
 */
export function csvRecords(text: string): {
  headers: string[];
  names: string[];
  records: Record<string, string>[];
} {
  const rows = readRows(text);
  if (rows.length === 0) throw new ImportFormatError("The CSV file is empty");
  const names = rows[0].map((h) => h.trim());
  const headers = names.map((h) => h.toLowerCase());
  const records = rows.slice(1).map((cells) => {
    const rec: Record<string, string> = {};
    headers.forEach((h, idx) => (rec[h] = cells[idx] ?? ""));
    return rec;
  });
  return { headers, names, records };
}
