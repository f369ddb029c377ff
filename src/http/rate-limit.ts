import type { MiddlewareHandler } from "hono";
import type { LimitCheck, LimitResult } from "../../durable-objects/rate-limiter";
import type { Bindings } from "../env";
import { AppError, ErrorCode } from "../lib/errors";
import { RATE_RULES, type RateRuleName } from "./rate-limit-rules";
import { requestMeta, type AppEnv } from "./types";

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

/**
 * Applies the general API limit plus the named rules. Fail-closed rules turn a limiter outage into
 * 503; every other rule lets the request through when the limiter cannot be reached.
 */
export function rateLimit(...names: RateRuleName[]): MiddlewareHandler<AppEnv> {
  const all: RateRuleName[] = ["general", ...names];
  const failClosed = all.some((n) => "failClosed" in RATE_RULES[n] && RATE_RULES[n].failClosed);
  return async function rateLimit(c, next) {
    const multiplier = c.get("config").RATE_LIMIT_MULTIPLIER;
    const user = c.get("user") as AppEnv["Variables"]["user"] | undefined;
    const ip = requestMeta(c.req).ip;
    const bySubject = new Map<string, LimitCheck[]>();
    for (const name of all) {
      const rule = RATE_RULES[name];
      const subject = "by" in rule && rule.by === "ip" ? `ip:${ip}` : user ? `user:${user.id}` : `ip:${ip}`;
      const list = bySubject.get(subject) ?? [];
      list.push({ rule: name, limit: Math.floor(rule.limit * multiplier), windowMs: rule.windowSeconds * 1000 });
      bySubject.set(subject, list);
    }
    const client = rateLimiterClient(c.env);
    let results: LimitResult[];
    try {
      results = await Promise.all([...bySubject].map(([subject, checks]) => client.hit(subject, checks)));
    } catch (err) {
      if (failClosed) throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, "Rate limiter unavailable");
      console.warn("rate limiter unreachable; letting the request through", String(err));
      return next();
    }
    for (const r of results) {
      if (!r.allowed) {
        throw new AppError(ErrorCode.RATE_LIMITED, "Too many requests", {
          headers: { "Retry-After": String(r.retryAfterSeconds) },
        });
      }
    }
    await next();
  };
}
