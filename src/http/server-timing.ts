import type { Context, MiddlewareHandler } from "hono";
import { Timing } from "./timing";
import type { AppEnv } from "./types";

/**
 * Wraps a middleware so the time it spends before handing on (or answering) counts towards `name`.
 * Without a Timing on the request (Server-Timing off) the middleware runs as it is.
 */
export function phase(name: string, mw: MiddlewareHandler<AppEnv>): MiddlewareHandler<AppEnv> {
  return async function timedPhase(c, next) {
    const timing = c.get("timing");
    // Awaited here, not returned: a middleware that throws before its first await hands back an
    // already-rejected promise, and returning it leaves it without a handler for a tick, which
    // workerd reports as an unhandled rejection.
    if (!timing) return await mw(c, next);
    const start = performance.now();
    let open = true;
    const stop = () => {
      if (open) timing.add(name, performance.now() - start);
      open = false;
    };
    try {
      return await mw(c, async () => {
        stop();
        await next();
      });
    } finally {
      stop();
    }
  };
}

/**
 * A D1 binding whose every query and batch is timed as `db`. Statements handed back to `batch` are
 * unwrapped first: D1 accepts only its own statement objects.
 */
function timedD1(db: D1Database, timing: Timing): D1Database {
  const original = new WeakMap<object, D1PreparedStatement>();
  const forward = (target: object, key: string | symbol) => {
    const value = Reflect.get(target, key, target);
    return typeof value === "function" ? value.bind(target) : value;
  };
  const wrap = (stmt: D1PreparedStatement): D1PreparedStatement => {
    const proxy = new Proxy(stmt, {
      get(target, key) {
        if (key === "bind") return (...args: unknown[]) => wrap(target.bind(...args));
        if (key === "first" || key === "all" || key === "run" || key === "raw") {
          const method = target[key] as (...a: unknown[]) => Promise<unknown>;
          return (...args: unknown[]) => timing.time("db", () => method.apply(target, args));
        }
        return forward(target, key);
      },
    });
    original.set(proxy, stmt);
    return proxy;
  };
  return new Proxy(db, {
    get(target, key) {
      if (key === "prepare") return (query: string) => wrap(target.prepare(query));
      if (key === "batch") {
        return (statements: D1PreparedStatement[]) =>
          timing.time("db", () => target.batch(statements.map((s) => original.get(s) ?? s)));
      }
      if (key === "exec") return (query: string) => timing.time("db", () => target.exec(query));
      return forward(target, key);
    },
  });
}

const isD1 = (v: unknown): v is D1Database =>
  typeof v === "object" &&
  v !== null &&
  typeof (v as D1Database).prepare === "function" &&
  typeof (v as D1Database).batch === "function";

function setHeader(c: Context<AppEnv>, name: string, value: string) {
  try {
    c.res.headers.set(name, value);
  } catch {
    // A response built elsewhere (a fetch passthrough) has immutable headers.
    c.res = new Response(c.res.body, c.res);
    c.res.headers.set(name, value);
  }
}

/**
 * Adds `Server-Timing` to every API response when SERVER_TIMING is "true" (off by default, so a
 * production deployment reveals nothing of its internals unless configured to). Phases: auth,
 * ratelimit, validation, idempotency, db, ser (JSON serialisation), app (the handler as a whole)
 * and total.
 */
export function serverTiming(): MiddlewareHandler<AppEnv> {
  return async function serverTiming(c, next) {
    if (!c.get("config").serverTiming) return next();
    const timing = new Timing();
    c.set("timing", timing);
    const env = c.env;
    // Every D1 binding (each shard, the directory), timed once per request whichever a repo reaches.
    const timed = new Map<PropertyKey, D1Database>();
    c.env = new Proxy(env, {
      get: (target, key) => {
        const value = Reflect.get(target, key);
        if (!isD1(value)) return value;
        if (!timed.has(key)) timed.set(key, timedD1(value, timing));
        return timed.get(key);
      },
    });
    const json = c.json;
    c.json = ((...args: Parameters<typeof json>) => {
      const start = performance.now();
      try {
        return json(...args);
      } finally {
        timing.add("ser", performance.now() - start);
      }
    }) as typeof json;
    const start = performance.now();
    try {
      await next();
    } finally {
      timing.add("total", performance.now() - start);
      c.env = env;
    }
    setHeader(c, "Server-Timing", timing.header());
  };
}
