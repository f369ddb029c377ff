import type { Context } from "hono";
import type { ZodType } from "zod";
import { ErrorCode, zodIssues } from "../lib/errors";
import { logJson } from "../lib/log";
import type { AppEnv } from "./types";

/** What the check needs of a route: its path and declared answers (route.ts's RouteDef). */
type Declared = {
  method: string;
  path: string;
  responses: Record<number, { schema?: ZodType; contentType?: string }>;
};

const JSON_TYPE = /^application\/json\s*(?:;|$)/i;

/** Keys the schema does not declare: zod strips them on parse, so they are in the input only. */
function undeclaredKeys(input: unknown, output: unknown, path: string, found: Set<string>): void {
  if (Array.isArray(input) && Array.isArray(output)) {
    input.forEach((v, i) => undeclaredKeys(v, output[i], `${path}[]`, found));
    return;
  }
  if (!input || !output || typeof input !== "object" || typeof output !== "object") return;
  for (const [k, v] of Object.entries(input)) {
    const at = path ? `${path}.${k}` : k;
    if (!(k in output)) found.add(at);
    else undeclaredKeys(v, (output as Record<string, unknown>)[k], at, found);
  }
}

/**
 * The route's answer as it is when it keeps to its declared schema; otherwise a 500 naming the
 * fields that differ (a missing or mistyped field, one the schema does not declare, an undeclared
 * success status). The client's wire types (core/api/wire.gen.ts) are generated from these
 * schemas, so a handler drifting from its schema fails the suite that exercises it instead of
 * surprising the client. Only when CHECK_RESPONSE_SCHEMAS is on (the worker suite), as it reads
 * every JSON answer twice.
 */
export async function checkResponse(
  c: Context<AppEnv>,
  def: Declared,
  res: Response,
): Promise<Response> {
  if (res.status < 200 || res.status >= 300) return res;
  if (!JSON_TYPE.test(res.headers.get("content-type") ?? "")) return res;
  const spec = def.responses[res.status];
  const problems: { field: string; message: string }[] = [];
  if (!spec) problems.push({ field: "(status)", message: `status ${res.status} is not declared` });
  else if (!spec.schema || (spec.contentType && !JSON_TYPE.test(spec.contentType))) return res;
  else {
    const body: unknown = await res.clone().json();
    const parsed = spec.schema.safeParse(body);
    if (!parsed.success) problems.push(...zodIssues(parsed.error));
    else {
      const extra = new Set<string>();
      undeclaredKeys(body, parsed.data, "", extra);
      for (const field of extra) problems.push({ field, message: "not declared by the schema" });
    }
  }
  if (!problems.length) return res;
  const route = `${def.method.toUpperCase()} ${def.path}`;
  logJson("error", "response differs from its declared schema", { route, problems });
  return c.json(
    {
      error: `${route} answered ${res.status} with a body its declared schema does not describe`,
      code: ErrorCode.INTERNAL_ERROR,
      status: 500,
      details: problems,
    },
    500,
  );
}
