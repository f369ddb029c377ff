import type { Context, MiddlewareHandler } from "hono";
import type { LimitCheck, LimitResult } from "../../durable-objects/rate-limiter";
import type { Bindings } from "../env";
import { AppError, ErrorCode } from "../lib/errors";
import { RATE_RULES, type RateRuleName } from "./rate-limit-rules";
import { requestMeta, type AppEnv } from "./types";
import { errorName, logJson } from "../lib/log";

/** Typed client of the RateLimiter Durable Object, one object per subject. */
export interface RateLimiterClient {
  hit(subject: string, checks: LimitCheck[]): Promise<LimitResult>;
}

export function rateLimiterClient(env: Bindings): RateLimiterClient {
  return {
    hit(subject, checks) {
      const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(subject));
      return stub.hit(checks) as Promise<LimitResult>;
    },
  };
}

type Verdict = { allowed: true } | { allowed: false; error: AppError };

/** The limiter call shared by both middlewares: every rule's subject, one object call per subject. */
function limiter(names: RateRuleName[]) {
  const own = names.some((n) => "ownBudget" in RATE_RULES[n] && RATE_RULES[n].ownBudget);
  const all: RateRuleName[] = own ? names : ["general", ...names];
  const failClosed = all.some((n) => "failClosed" in RATE_RULES[n] && RATE_RULES[n].failClosed);
  const check = async (c: Context<AppEnv>): Promise<Verdict> => {
    const multiplier = c.get("config").RATE_LIMIT_MULTIPLIER;
    const user = c.get("user") as AppEnv["Variables"]["user"] | undefined;
    const ip = requestMeta(c.req).ip;
    const bySubject = new Map<string, LimitCheck[]>();
    for (const name of all) {
      const rule = RATE_RULES[name];
      const subject =
        "by" in rule && rule.by === "ip" ? `ip:${ip}` : user ? `user:${user.id}` : `ip:${ip}`;
      const list = bySubject.get(subject) ?? [];
      list.push({
        rule: name,
        limit: Math.floor(rule.limit * multiplier),
        windowMs: rule.windowSeconds * 1000,
      });
      bySubject.set(subject, list);
    }
    const client = rateLimiterClient(c.env);
    const hit = () =>
      Promise.all([...bySubject].map(([subject, checks]) => client.hit(subject, checks)));
    let results: LimitResult[];
    try {
      const timing = c.get("timing");
      results = await (timing ? timing.time("ratelimit", hit) : hit());
    } catch (err) {
      if (failClosed)
        return {
          allowed: false,
          error: new AppError(ErrorCode.SERVICE_UNAVAILABLE, "Rate limiter unavailable"),
        };
      logJson("warn", "rate limiter unreachable; letting the request through", {
        error: errorName(err),
      });
      return { allowed: true };
    }
    const refused = results.find((r) => !r.allowed);
    if (!refused) return { allowed: true };
    return {
      allowed: false,
      error: new AppError(ErrorCode.RATE_LIMITED, "Too many requests", {
        headers: { "Retry-After": String(refused.retryAfterSeconds) },
      }),
    };
  };
  return { check, failClosed };
}

/**
 * Applies the general API limit plus the named rules. Fail-closed rules turn a limiter outage into
 * 503; every other rule lets the request through when the limiter cannot be reached.
 */
export function rateLimit(...names: RateRuleName[]): MiddlewareHandler<AppEnv> {
  const { check } = limiter(names);
  return async function rateLimit(c, next) {
    const verdict = await check(c);
    if (!verdict.allowed) throw verdict.error;
    await next();
  };
}

/**
 * The same limits, checked while the rest of the request runs, for reads whose answer the check
 * cannot change: the limiter's round trip no longer comes before the database's. A refused
 * request still answers 429 (or the 503 of an outage) and its result is thrown away, and a refusal
 * wins over any error the request met meanwhile, as it would have come first. Fail-closed rules
 * keep the check in front.
 */
export function rateLimitAlongside(...names: RateRuleName[]): MiddlewareHandler<AppEnv> {
  const { check, failClosed } = limiter(names);
  if (failClosed) return rateLimit(...names);
  return async function rateLimitAlongside(c, next) {
    const verdict = check(c);
    let failure: unknown;
    try {
      await next();
    } catch (err) {
      failure = err;
    }
    const v = await verdict;
    if (!v.allowed) {
      await c.res?.body?.cancel().catch(() => {});
      throw v.error;
    }
    if (failure !== undefined) throw failure;
  };
}
