import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { routePath } from "hono/route";
import {
  AppError,
  ErrorCode,
  errorBody,
  SealedValueError,
  sealedValueUnusable,
} from "../lib/errors";
import { logJson, requestIdOf } from "./request-log";
import { allowedMethods } from "./route";

/** Route families whose error codes are lower-case (spec "Errors"). */
const LOWER_CASE_PREFIXES = ["/api/admin/services/registry", "/api/notifications"];

function usesLowerCase(path: string): boolean {
  return LOWER_CASE_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`));
}

export function errorResponse(c: Context, err: AppError): Response {
  const res = c.json(errorBody(err, usesLowerCase(c.req.path)), err.status as 400);
  for (const [k, v] of Object.entries(err.headers)) res.headers.set(k, v);
  return res;
}

/** The one error handler: whatever was thrown, the client gets the standard body and no internals. */
export function handleError(err: unknown, c: Context): Response {
  if (err instanceof AppError) return errorResponse(c, err);
  if (err instanceof HTTPException) {
    if (err.status === 400)
      return errorResponse(
        c,
        new AppError(ErrorCode.VALIDATION_ERROR, "Malformed JSON in request body", {
          details: [{ field: "body", message: "invalid JSON" }],
        }),
      );
    if (err.status === 413)
      return errorResponse(c, new AppError(ErrorCode.PAYLOAD_TOO_LARGE, "Request body too large"));
    if (err.status === 401)
      return errorResponse(c, new AppError(ErrorCode.UNAUTHORIZED, "Authentication required"));
  }
  if (err instanceof SealedValueError) {
    // A configuration fault (a data key rotated out too early, a row from another deployment), not
    // a bug: logged as that, with the purpose and key id only.
    logJson("error", "sealed value could not be opened", {
      requestId: requestIdOf(c),
      method: c.req.method,
      route: routePath(c, -1),
      purpose: err.purpose,
      kid: err.keyId || "-",
      reason: err.reason,
    });
    return errorResponse(c, sealedValueUnusable());
  }
  logJson("error", "unhandled error", {
    requestId: requestIdOf(c),
    method: c.req.method,
    route: routePath(c, -1),
    error: err instanceof Error ? `${err.name}: ${err.message}` : "non-error thrown",
  });
  return errorResponse(c, new AppError(ErrorCode.INTERNAL_ERROR, "Internal server error"));
}

/** Unknown routes: 405 when the path exists under another method, else 404 (DECISIONS D4). */
export function handleNotFound(c: Context): Response {
  const allowed = allowedMethods(c.req.path);
  if (allowed.length > 0 && !allowed.includes(c.req.method)) {
    return errorResponse(
      c,
      new AppError(ErrorCode.METHOD_NOT_ALLOWED, "Method not allowed", {
        headers: { Allow: allowed.join(", ") },
      }),
    );
  }
  return errorResponse(c, new AppError(ErrorCode.NOT_FOUND, "Not found"));
}
