import { zValidator } from "@hono/zod-validator";
import type { Context, Hono, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { z, type ZodType } from "zod";
import { AppError, ErrorCode, zodIssues } from "../lib/errors";
import { authenticate, requireAdmin } from "./auth";
import { csrfProtection } from "./csrf";
import { idempotency } from "./idempotency";
import { rateLimit, rateLimitAlongside } from "./rate-limit";
import { checkResponse } from "./response-check";
import type { RateRuleName } from "./rate-limit-rules";
import { phase } from "./server-timing";
import { exemptFromSecondFactor, notesSecondFactor, requireSecondFactor } from "./second-factor";
import { stepUp, type StepUpOptions } from "./step-up";
import type { AppEnv } from "./types";

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

type Method = "get" | "post" | "patch" | "put" | "delete";
type AnySchema = ZodType;
type Out<S> = S extends ZodType ? z.output<S> : undefined;

export type ResponseSpec = { description: string; schema?: AnySchema; contentType?: string };

export type RouteDef<
  B extends AnySchema | undefined,
  Q extends AnySchema | undefined,
  P extends AnySchema | undefined,
> = {
  method: Method;
  path: string;
  summary: string;
  tags: string[];
  /** Default true. */
  auth?: boolean;
  admin?: boolean;
  /** Default true for mutating methods; the spec's exemptions pass false. */
  csrf?: boolean;
  rateLimit?: RateRuleName[];
  /**
   * Check the rate limits alongside the handler instead of before it, for reads whose answer the
   * check cannot change: a refused request still gets 429 and sees none of the result. Ignored
   * for fail-closed rules, which must hold before anything runs.
   */
  rateLimitConcurrent?: boolean;
  stepUp?: StepUpOptions;
  idempotent?: boolean;
  bodyLimit?: number;
  body?: B;
  query?: Q;
  params?: P;
  responses: Record<number, ResponseSpec>;
  deprecated?: boolean;
  handler: (
    c: Context<AppEnv>,
    input: { body: Out<B>; query: Out<Q>; params: Out<P> },
  ) => Response | Promise<Response>;
};

export type RegisteredRoute = RouteDef<
  AnySchema | undefined,
  AnySchema | undefined,
  AnySchema | undefined
>;

/** Every route, for the OpenAPI document and for telling 405 from 404. */
export const registry: RegisteredRoute[] = [];

/** The validator hook: every schema failure becomes the standard 400 body with field details. */
function hook(result: { success: boolean; error?: unknown }) {
  if (!result.success) {
    throw new AppError(ErrorCode.VALIDATION_ERROR, "Request validation failed", {
      details: zodIssues(result.error as z.ZodError),
    });
  }
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

function requireJsonBody(): MiddlewareHandler<AppEnv> {
  return async function requireJsonBody(c, next) {
    const length = c.req.header("content-length");
    const hasBody =
      (length !== undefined && length !== "0") || c.req.header("transfer-encoding") !== undefined;
    const type = c.req.header("content-type");
    if (hasBody && (!type || !JSON_TYPE.test(type))) {
      throw new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, "Content-Type must be application/json");
    }
    await next();
  };
}

/**
 * Registers a route with the middleware order of DECISIONS D2: authentication (with the account's
 * 2FA for this sign-in, D20), CSRF, rate limits, step-up, then the body is read (size cap, media
 * type) and validated, then idempotency.
 */
export function route<
  B extends AnySchema | undefined = undefined,
  Q extends AnySchema | undefined = undefined,
  P extends AnySchema | undefined = undefined,
>(app: Hono<AppEnv>, def: RouteDef<B, Q, P>): void {
  registry.push(def as unknown as RegisteredRoute);
  const chain: MiddlewareHandler<AppEnv>[] = [];
  const mutating = def.method !== "get";
  if (def.auth !== false) chain.push(phase("auth", authenticate()));
  if (def.auth !== false && !exemptFromSecondFactor(def.method, def.path))
    chain.push(phase("auth", requireSecondFactor()));
  else if (def.auth !== false && notesSecondFactor(def.method, def.path))
    chain.push(phase("auth", requireSecondFactor({ refuse: false })));
  if (def.admin) chain.push(requireAdmin());
  if (def.auth !== false && mutating && def.csrf !== false)
    chain.push(phase("auth", csrfProtection()));
  chain.push((def.rateLimitConcurrent ? rateLimitAlongside : rateLimit)(...(def.rateLimit ?? [])));
  if (def.stepUp) chain.push(phase("auth", stepUp(def.stepUp)));
  if (mutating) {
    chain.push(
      phase(
        "validation",
        bodyLimit({
          maxSize: def.bodyLimit ?? DEFAULT_BODY_LIMIT,
          onError: () => {
            throw new AppError(ErrorCode.PAYLOAD_TOO_LARGE, "Request body too large");
          },
        }),
      ),
    );
  }
  const validator = (target: "param" | "query" | "json", schema: ZodType) =>
    phase("validation", zValidator(target, schema, hook) as unknown as MiddlewareHandler<AppEnv>);
  if (def.params) chain.push(validator("param", def.params as ZodType));
  if (def.query) chain.push(validator("query", def.query as ZodType));
  if (def.body) {
    chain.push(phase("validation", requireJsonBody()));
    chain.push(validator("json", def.body as ZodType));
  }
  if (def.idempotent) chain.push(phase("idempotency", idempotency()));
  const handler = async (c: Context<AppEnv>) => {
    const valid = c.req.valid.bind(c.req) as unknown as (t: string) => unknown;
    const run = () =>
      def.handler(c, {
        body: (def.body ? valid("json") : undefined) as Out<B>,
        query: (def.query ? valid("query") : undefined) as Out<Q>,
        params: (def.params ? valid("param") : undefined) as Out<P>,
      });
    const timing = c.get("timing");
    // Awaited, not returned: a handler that throws before its first await hands back a rejected
    // promise that would sit unhandled for a tick (see phase() in server-timing.ts).
    const res = timing ? await timing.time("app", async () => run()) : await run();
    return c.get("config").CHECK_RESPONSE_SCHEMAS === "true" ? checkResponse(c, def, res) : res;
  };
  (app.on as (m: string, p: string, ...h: unknown[]) => unknown)(
    def.method.toUpperCase(),
    def.path,
    ...chain,
    handler,
  );
}

function pathPattern(path: string): RegExp {
  const src = path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\\?:[A-Za-z_]\w*/g, "[^/]+");
  return new RegExp(`^${src}/?$`);
}

/** The methods registered for a concrete path, to answer 405 with an Allow header. */
export function allowedMethods(path: string): string[] {
  const methods = new Set<string>();
  for (const r of registry) if (pathPattern(r.path).test(path)) methods.add(r.method.toUpperCase());
  return [...methods];
}
