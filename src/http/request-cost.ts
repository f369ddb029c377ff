import { AsyncLocalStorage } from "node:async_hooks";
import type { Context, MiddlewareHandler } from "hono";
import { logJson } from "../lib/log";
import { CostMeter } from "./cost-meter";
import type { AppEnv } from "./types";

/** The response header the cost bench (bench/cost.mjs) and the cost regression test read. */
export const COST_HEADER = "X-Request-Cost";

const R2_CLASS_A = new Set(["put", "list", "createMultipartUpload", "resumeMultipartUpload"]);
const R2_CLASS_B = new Set(["get", "head"]);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;
const isNamespace = (v: unknown) =>
  isObject(v) && typeof v.idFromName === "function" && typeof v.get === "function";
const isBucket = (v: unknown) =>
  isObject(v) && typeof v.head === "function" && typeof v.createMultipartUpload === "function";
const isQueue = (v: unknown) =>
  isObject(v) && typeof v.send === "function" && typeof v.sendBatch === "function";

/** A Durable Object stub whose every method call (fetch or RPC) counts as one request. */
function countedStub(stub: object, meter: CostMeter): object {
  return new Proxy(stub, {
    get(target, key) {
      const t = target as Record<PropertyKey, unknown>;
      if (typeof key === "symbol" || key === "then") return t[key];
      const value = t[key];
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        meter.durableObjects++;
        return (t[key] as (...a: unknown[]) => unknown)(...args);
      };
    },
  });
}

function counted(value: unknown, meter: CostMeter): unknown {
  if (isNamespace(value)) {
    return new Proxy(value as object, {
      get(target, key) {
        const t = target as Record<PropertyKey, unknown>;
        const v = t[key];
        if (typeof v !== "function") return v;
        if (key === "get" || key === "getByName")
          return (...args: unknown[]) =>
            countedStub((v as (...a: unknown[]) => object).apply(target, args), meter);
        return (v as (...a: unknown[]) => unknown).bind(target);
      },
    });
  }
  if (isBucket(value) || isQueue(value)) {
    return new Proxy(value as object, {
      get(target, key) {
        const v = (target as Record<PropertyKey, unknown>)[key];
        if (typeof v !== "function") return v;
        return (...args: unknown[]) => {
          if (typeof key === "string" && isQueue(target)) {
            if (key === "send") meter.queue++;
            if (key === "sendBatch") meter.queue += (args[0] as unknown[] | undefined)?.length ?? 0;
          } else if (typeof key === "string" && R2_CLASS_A.has(key)) meter.r2ClassA++;
          else if (typeof key === "string" && R2_CLASS_B.has(key)) meter.r2ClassB++;
          return (v as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  }
  return value;
}

/** The request whose outbound fetches are being counted, if any. */
const current = new AsyncLocalStorage<CostMeter>();
let fetchCounted = false;

/** Wraps the global fetch once, the first time counting is on; it counts only inside a metered request. */
function countFetches() {
  if (fetchCounted) return;
  fetchCounted = true;
  const original = globalThis.fetch;
  globalThis.fetch = ((...args: Parameters<typeof fetch>) => {
    const meter = current.getStore();
    if (meter) meter.fetches++;
    return original(...args);
  }) as typeof fetch;
}

function setHeader(c: Context<AppEnv>, value: string) {
  try {
    c.res.headers.set(COST_HEADER, value);
  } catch {
    // A WebSocket upgrade's answer cannot be rebuilt; a passthrough's headers are immutable.
    if (c.res.status === 101) return;
    c.res = new Response(c.res.body, c.res);
    c.res.headers.set(COST_HEADER, value);
  }
}

/**
 * Counts each API request's use of metered services and answers it in X-Request-Cost, when
 * COST_COUNTERS is "true" (a bench and test switch: off unless set, refused in production by
 * src/env.ts). The header carries counts only, never a statement, a key or a value. Runs before
 * the D1 sessions are opened, so each session is watched from its first statement.
 */
export function requestCost(): MiddlewareHandler<AppEnv> {
  return async function requestCost(c, next) {
    if (!c.get("config").costCounters) return next();
    countFetches();
    const meter = new CostMeter();
    c.set("cost", meter);
    const env = c.env;
    const wrapped = new Map<PropertyKey, unknown>();
    c.env = new Proxy(env, {
      get(target, key) {
        if (!wrapped.has(key)) wrapped.set(key, counted(Reflect.get(target, key), meter));
        return wrapped.get(key);
      },
    });
    try {
      await current.run(meter, next);
    } finally {
      c.env = env;
    }
    const answered = meter.header();
    // A WebSocket's 101 carries no header the client can read: its cost goes to the log.
    if (c.res.status === 101) {
      logJson("info", "request cost", {
        requestId: c.get("requestId"),
        cost: answered,
        upgrade: true,
      });
      return;
    }
    setHeader(c, answered);
    // A streamed answer (a full pull's later pages) goes on reading after its headers are sent:
    // what the whole request cost is logged once the body ends, under the request's id, if more.
    const body = c.res.body;
    if (!body) return;
    const requestId = c.get("requestId");
    c.res = new Response(
      body.pipeThrough(
        new TransformStream({
          flush() {
            const whole = meter.header();
            if (whole !== answered) logJson("info", "request cost", { requestId, cost: whole });
          },
        }),
      ),
      c.res,
    );
  };
}
