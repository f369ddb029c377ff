import { ImportFormatError } from "./model";

export function requireHeaders(headers: string[], needed: string[], label: string) {
  const missing = needed.filter((h) => !headers.includes(h));
  if (missing.length > 0)
    throw new ImportFormatError(`Not a ${label} export: missing column(s) ${missing.join(", ")}`);
}

/** First non-empty value among several header spellings. */
export const pick = (rec: Record<string, string>, ...names: string[]) =>
  names.map((n) => rec[n]).find((v) => v !== undefined && v !== "") ?? "";
