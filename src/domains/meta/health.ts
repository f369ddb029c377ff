import type { Bindings, Config } from "../../env";
import { bindingOf, directoryBinding, shardBindings } from "../../db/shards";

/**
 * What `/api/health` reports beside `status`: whether each binding the worker depends on answers.
 * Names and outcomes only: no database id, bucket name, setting or error text leaves the worker
 * (the cause goes to the log with the request id).
 */
export type Check = {
  binding: string;
  kind: "d1" | "r2" | "queue";
  ok: boolean;
  ms?: number;
  error?: "unreachable" | "timeout" | "not bound";
  note?: string;
};
export type Health = { status: "ok" | "degraded"; checks: Check[] };

/** A probe that has not answered by then counts as down: a monitor wants an answer, not a hang. */
const PROBE_TIMEOUT_MS = 3000;
/**
 * The endpoint needs no sign-in, so its answer is kept a few seconds per isolate: a flood of health
 * requests costs one probe of each database per isolate per window, not one per request.
 */
const CACHE_MS = 5000;
const cache = new WeakMap<object, { at: number; health: Promise<Health> }>();

async function probe(
  binding: string,
  kind: Check["kind"],
  run: () => Promise<unknown>,
  log: (binding: string, err: unknown) => void,
): Promise<Check> {
  const start = Date.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">(
    (resolve) => (timer = setTimeout(() => resolve("timeout"), PROBE_TIMEOUT_MS)),
  );
  try {
    const outcome = await Promise.race([run().then(() => "ok" as const), timeout]);
    return outcome === "ok"
      ? { binding, kind, ok: true, ms: Date.now() - start }
      : { binding, kind, ok: false, error: "timeout" };
  } catch (err) {
    log(binding, err);
    return { binding, kind, ok: false, ms: Date.now() - start, error: "unreachable" };
  } finally {
    clearTimeout(timer);
  }
}

function checkAll(
  env: Bindings,
  config: Config,
  log: (binding: string, err: unknown) => void,
): Promise<Health> {
  const probes: Promise<Check>[] = [];
  // Each shard and the directory: one `SELECT 1` each, on the binding the worker reads through.
  const d1 = [...shardBindings(env), directoryBinding(env)];
  for (const name of new Set(d1))
    probes.push(probe(name, "d1", () => bindingOf(env, name).prepare("SELECT 1").first(), log));
  // A HEAD of a key that is never written: a round trip to the bucket that reads no one's data.
  probes.push(probe("ATTACHMENTS", "r2", () => env.ATTACHMENTS.head("health/probe"), log));
  // A queue binding offers only send: it cannot be probed without enqueuing a message, so it is
  // reported as bound or not. The mail queue is needed only when mail goes over HTTP (D19).
  const queues: [string, unknown, boolean][] = [
    ["RESET_QUEUE", env.RESET_QUEUE, true],
    ["MAIL_QUEUE", env.MAIL_QUEUE, config.MAIL_TRANSPORT === "http"],
  ];
  for (const [name, q, required] of queues) {
    const bound = typeof (q as Queue | undefined)?.send === "function";
    if (bound)
      probes.push(
        Promise.resolve({
          binding: name,
          kind: "queue",
          ok: true,
          note: "bound; a queue cannot be probed without sending",
        }),
      );
    else if (required)
      probes.push(Promise.resolve({ binding: name, kind: "queue", ok: false, error: "not bound" }));
  }
  return Promise.all(probes).then((checks) => ({
    status: checks.every((c) => c.ok) ? "ok" : "degraded",
    checks,
  }));
}

export function health(
  env: Bindings,
  config: Config,
  log: (binding: string, err: unknown) => void,
): Promise<Health> {
  const hit = cache.get(env);
  if (hit && Date.now() - hit.at < CACHE_MS) return hit.health;
  const health = checkAll(env, config, log);
  cache.set(env, { at: Date.now(), health });
  return health;
}
