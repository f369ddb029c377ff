import { AsyncLocalStorage } from "node:async_hooks";

export type LogLevel = "info" | "warn" | "error";

/**
 * What every line written inside one invocation carries: the request's id for a request (the id
 * its answer carries in `X-Request-Id`), or the trigger for a cron, a queue batch or an alarm.
 * Names and ids only, never a secret.
 */
export type LogContext = Record<string, string | number | undefined>;

/**
 * The invocation's context, kept across every await of the code it runs (workerd's
 * AsyncLocalStorage under `nodejs_compat`), so a domain service deep below the handler logs the
 * request id without being handed the request.
 */
const scope = new AsyncLocalStorage<LogContext>();

/** Runs `fn` with `context` added to every line it (and what it awaits or schedules) logs. */
export function withLogContext<T>(context: LogContext, fn: () => T): T {
  return scope.run({ ...scope.getStore(), ...context }, fn);
}

/** The current invocation's request id, when a request is being handled. */
export function currentRequestId(): string | undefined {
  const id = scope.getStore()?.requestId;
  return typeof id === "string" ? id : undefined;
}

/** An error as a log field: its name only, never its message (a message can quote a value). */
export const errorName = (err: unknown): string =>
  err instanceof Error ? err.name : "non-error thrown";

/**
 * One log line as one JSON object, so Workers Logs (and any search over them) can filter by field.
 * Callers pass names and outcomes, never a secret, a token or a body. The invocation's context
 * comes first; a field given here wins over it.
 */
export function logJson(level: LogLevel, msg: string, fields: Record<string, unknown> = {}): void {
  const line = JSON.stringify({ level, msg, ...scope.getStore(), ...fields });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}
