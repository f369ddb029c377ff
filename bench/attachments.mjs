// Attachments bench (docs/decisions/vault.md, "Vault: disposable identities and encrypted attachments"): upload and download of a 25 MB attachment against `wrangler dev`,
// with wall time and the peak resident memory of the workerd process serving the worker.
//   node bench/attachments.mjs [--runs 3] [--port 8790]
//
// Memory: wrangler dev runs two workerd processes, a proxy on our port and the runtime that executes
// the worker together with miniflare's local R2 and D1 simulators. The VmRSS of each, from
// /proc/<pid>/status, is sampled every 5 ms while a request runs; peak minus the value just before
// is the request's cost. The runtime figure includes the R2 simulator, so it bounds the worker's own
// use from above.
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildSync } from "esbuild";
import { fmt, rssKiB, signDevToken, startWorker, workerdPids } from "./lib/harness.mjs";
import { ROOT } from "../scripts/lib/dev-identity.mjs";

const { values } = parseArgs({
  options: { runs: { type: "string", default: "3" }, port: { type: "string", default: "8790" } },
});
const port = Number(values.port);
const MiB = 1024 * 1024;

// The client module is TypeScript; esbuild (already there for wrangler) turns it into an ES module
// so the bench encrypts exactly as a client would.
const bundled = buildSync({
  entryPoints: [join(ROOT, "src/client/attachments.ts")],
  bundle: true,
  format: "esm",
  write: false,
  platform: "neutral",
});
const client = await import(
  `data:text/javascript;base64,${Buffer.from(bundled.outputFiles[0].text).toString("base64")}`
);

async function measured(pids, fn) {
  const idle = { runtime: rssKiB(pids.runtime), proxy: rssKiB(pids.proxy) };
  const peak = { ...idle };
  const sample = () => {
    peak.runtime = Math.max(peak.runtime, rssKiB(pids.runtime));
    peak.proxy = Math.max(peak.proxy, rssKiB(pids.proxy));
  };
  const timer = setInterval(sample, 5);
  const t0 = performance.now();
  try {
    const result = await fn();
    const ms = performance.now() - t0;
    sample();
    return { ms, idle, peak, result };
  } finally {
    clearInterval(timer);
  }
}

const mem = (m) =>
  `runtime RSS ${fmt(m.idle.runtime / 1024, 0)} -> ${fmt(m.peak.runtime / 1024, 0)} MiB (+${fmt((m.peak.runtime - m.idle.runtime) / 1024, 0)}), proxy +${fmt((m.peak.proxy - m.idle.proxy) / 1024, 0)} MiB`;

const worker = await startWorker({ port, name: "attachments" });
try {
  const pids = workerdPids(port);
  const sub = `bench-${Date.now()}`;
  const token = await signDevToken({ sub, email: "bench@example.test" });
  const auth = { authorization: `Bearer ${token}` };
  const { csrfToken } = await (
    await fetch(`${worker.base}/api/auth/csrf-token`, { headers: auth })
  ).json();
  const json = { ...auth, "x-csrf-token": csrfToken, "content-type": "application/json" };
  const b64 = (n) => Buffer.from(crypto.getRandomValues(new Uint8Array(n))).toString("base64");
  const entry = await fetch(`${worker.base}/api/passwords`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({
      name: "Bench",
      wrapped_item_key: b64(40),
      encrypted_data: b64(120),
      name_hash: "ab".repeat(32),
      username_hash: "cd".repeat(32),
    }),
  });
  const parentId = (await entry.json()).data.id;

  const vaultKey = await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, [
    "wrapKey",
    "unwrapKey",
  ]);
  const content = new Uint8Array(25 * MiB);
  for (let i = 0; i < content.length; i += 65536)
    crypto.getRandomValues(content.subarray(i, i + 65536));
  const t0 = performance.now();
  const body = JSON.stringify(
    await client.buildUploadBody(
      vaultKey,
      { id: parentId, type: "password" },
      { content, filename: "bench.bin", mimeType: "application/octet-stream" },
    ),
  );
  console.log(
    `client-side encryption and encoding of 25 MiB: ${fmt(performance.now() - t0, 0)} ms; request body ${fmt(body.length / MiB, 1)} MiB`,
  );
  console.log(
    `workerd runtime pid ${pids.runtime} (idle RSS ${fmt(rssKiB(pids.runtime) / 1024, 1)} MiB), proxy pid ${pids.proxy} (${fmt(rssKiB(pids.proxy) / 1024, 1)} MiB)`,
  );

  const rows = [];
  for (let run = 1; run <= Number(values.runs); run++) {
    const up = await measured(pids, async () => {
      const res = await fetch(`${worker.base}/api/vault/attachments`, {
        method: "POST",
        headers: json,
        body,
      });
      if (res.status !== 201) throw new Error(`upload ${res.status} ${await res.text()}`);
      return (await res.json()).attachment;
    });
    const down = await measured(pids, async () => {
      const res = await fetch(`${worker.base}/api/vault/attachments/${up.result.id}`, {
        headers: auth,
      });
      if (res.status !== 200) throw new Error(`download ${res.status} ${await res.text()}`);
      return (await res.json()).attachment;
    });
    const plain = await client.decryptAttachment(vaultKey, down.result);
    const ok =
      plain.content.length === content.length &&
      Buffer.compare(Buffer.from(plain.content), Buffer.from(content)) === 0;
    rows.push({ run, up, down, ok });
    console.log(
      `run ${run}: upload ${fmt(up.ms, 0)} ms (${mem(up)}); download ${fmt(down.ms, 0)} ms (${mem(down)}); decrypted intact: ${ok}`,
    );
    const del = await fetch(`${worker.base}/api/vault/attachments/${up.result.id}`, {
      method: "DELETE",
      headers: { ...auth, "x-csrf-token": csrfToken },
    });
    if (del.status !== 200) throw new Error(`delete ${del.status}`);
  }
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(
    `median: upload ${fmt(med(rows.map((r) => r.up.ms)), 0)} ms, download ${fmt(med(rows.map((r) => r.down.ms)), 0)} ms; ` +
      `highest runtime RSS during upload ${fmt(Math.max(...rows.map((r) => r.up.peak.runtime)) / 1024, 0)} MiB, during download ${fmt(Math.max(...rows.map((r) => r.down.peak.runtime)) / 1024, 0)} MiB`,
  );
} finally {
  worker.stop();
}
