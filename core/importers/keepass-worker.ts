/**
 * The KeePass reader in a dedicated module Worker: a KDBX 4's Argon2 (tens of MiB, a second or
 * more of WebAssembly) and the parse of a large database would otherwise hold the import page in
 * one long task. One worker per file, ended when it answers, so the Argon2 memory goes with it.
 * The master password and key file come with the message and are dropped with the worker.
 */
import type { KeePassRequest, KeePassResponse } from "./keepass-reader";
import { readKdbx, readKeePassXml } from "./keepass";

self.onmessage = async (ev: MessageEvent<KeePassRequest>) => {
  const req = ev.data;
  let res: KeePassResponse;
  try {
    res = {
      ok: true,
      out:
        req.kind === "kdbx"
          ? await readKdbx(req.bytes, req.password, req.keyFile)
          : await readKeePassXml(req.text),
    };
  } catch (err) {
    res = {
      ok: false,
      name: err instanceof Error ? err.name : "Error",
      message: err instanceof Error ? err.message : String(err),
    };
  }
  self.postMessage(res);
};
