/**
 * The text files of a zip export (1PUX, Proton Pass), read with fflate, a small maintained zip
 * reader. Only .data and .json members are inflated: attachments inside are not read.
 */
import { ImportFormatError } from "./model";

export async function readZip(bytes: Uint8Array): Promise<Map<string, string>> {
  const { unzipSync } = await import("fflate");
  let files: Record<string, Uint8Array>;
  try {
    // Synchronous: the asynchronous form would start a worker from a blob: URL, which the app's CSP refuses.
    files = unzipSync(bytes, { filter: (f) => /\.(data|json)$/i.test(f.name) });
  } catch (err) {
    throw new ImportFormatError(`The zip file cannot be read: ${err instanceof Error ? err.message : String(err)}`);
  }
  const dec = new TextDecoder();
  return new Map(Object.entries(files).map(([name, data]) => [name, dec.decode(data)]));
}
