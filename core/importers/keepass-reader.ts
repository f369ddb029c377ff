/**
 * Where a KeePass file is read: in the KeePass worker (keepass-worker.ts) when the client build
 * made one, so the page keeps answering while Argon2 runs; otherwise (a test outside the browser,
 * a bundle without the worker) on the page, through a chunk loaded only for KeePass files.
 */
import { WrongPasswordError } from "./bitwarden-crypto";
import { ImportFormatError, type ParseOutput } from "./model";

/** The URL of the worker's bundle, set by the client build (scripts/build-client.mjs). */
declare const __KEEPASS_WORKER__: string | undefined;

export type KeePassRequest =
  | { kind: "kdbx"; bytes: Uint8Array; password?: string; keyFile?: Uint8Array }
  | { kind: "xml"; text: string };
export type KeePassResponse =
  | { ok: true; out: ParseOutput }
  | { ok: false; name: string; message: string };

/** The worker's answer, its errors given back their types (a wrong password may be retried). */
function answer(res: KeePassResponse): ParseOutput {
  if (res.ok) return res.out;
  if (res.name === "WrongPasswordError")
    throw new WrongPasswordError("KeePass database", res.message);
  throw new ImportFormatError(res.message);
}

/** The part of a Web Worker used here (the importers are also compiled, and tested, without the DOM's types). */
type WorkerLike = {
  postMessage(m: unknown): void;
  terminate(): void;
  onmessage: ((ev: { data: KeePassResponse }) => void) | null;
  onerror: ((ev: { preventDefault(): void }) => void) | null;
};
type WorkerCtor = new (url: string, opts: { type: "module"; name: string }) => WorkerLike;

function inWorker(Ctor: WorkerCtor, url: string, req: KeePassRequest): Promise<ParseOutput> {
  return new Promise((resolve, reject) => {
    const worker = new Ctor(url, { type: "module", name: "keepass-reader" });
    worker.onmessage = (ev) => {
      worker.terminate();
      try {
        resolve(answer(ev.data));
      } catch (err) {
        reject(err);
      }
    };
    worker.onerror = (ev) => {
      ev.preventDefault();
      worker.terminate();
      reject(new ImportFormatError("The KeePass reader could not start in this browser"));
    };
    worker.postMessage(req);
  });
}

export async function readKeePass(req: KeePassRequest): Promise<ParseOutput> {
  const url = typeof __KEEPASS_WORKER__ === "string" ? __KEEPASS_WORKER__ : null;
  const Ctor = (globalThis as { Worker?: WorkerCtor }).Worker;
  if (url && Ctor) return inWorker(Ctor, url, req);
  const { readKdbx, readKeePassXml } = await import("./keepass");
  return req.kind === "kdbx"
    ? readKdbx(req.bytes, req.password, req.keyFile)
    : readKeePassXml(req.text);
}
