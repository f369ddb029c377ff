import type { ZodError } from "zod";

/** The closed set of error codes the API answers with (spec "Errors", DECISIONS D3/D4). */
export const ErrorCode = {
  VALIDATION_ERROR: "VALIDATION_ERROR",
  UNAUTHORIZED: "UNAUTHORIZED",
  STEP_UP_REQUIRED: "STEP_UP_REQUIRED",
  TWO_FACTOR_REQUIRED: "TWO_FACTOR_REQUIRED",
  FORBIDDEN: "FORBIDDEN",
  NOT_FOUND: "NOT_FOUND",
  METHOD_NOT_ALLOWED: "METHOD_NOT_ALLOWED",
  CONFLICT: "CONFLICT",
  GONE: "GONE",
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  UNSUPPORTED_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  UNPROCESSABLE: "UNPROCESSABLE",
  RATE_LIMITED: "RATE_LIMITED",
  INTERNAL_ERROR: "INTERNAL_ERROR",
  SERVICE_UNAVAILABLE: "SERVICE_UNAVAILABLE",
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

const STATUS: Record<ErrorCode, number> = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  STEP_UP_REQUIRED: 401,
  TWO_FACTOR_REQUIRED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  GONE: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
};

export function codeToStatus(code: ErrorCode): number {
  return STATUS[code];
}

/**
 * The admin registry and notifications speak lower-case codes (spec "Errors"). Only
 * VALIDATION_ERROR is renamed; the others are the same word in lower case, except
 * TWO_FACTOR_REQUIRED, which DECISIONS D20 names for every route alike (one code a client handles
 * in one place).
 */
export function lowerCaseCode(code: ErrorCode): string {
  if (code === "TWO_FACTOR_REQUIRED") return code;
  return code === "VALIDATION_ERROR" ? "validation_failed" : code.toLowerCase();
}

export type FieldIssue = { field: string; message: string };

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: FieldIssue[];
  readonly headers: Record<string, string>;
  readonly extra: Record<string, unknown>;

  constructor(
    code: ErrorCode,
    message: string,
    opts: {
      details?: FieldIssue[];
      headers?: Record<string, string>;
      extra?: Record<string, unknown>;
    } = {},
  ) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.status = codeToStatus(code);
    this.details = opts.details;
    this.headers = opts.headers ?? {};
    this.extra = opts.extra ?? {};
  }
}

/**
 * A value sealed under a data key (D10) that no configured key opens: its key id is unknown (the key
 * was rotated out or the row was moved from another deployment) or the ciphertext does not
 * authenticate. It carries only what is safe to log: the purpose (the AAD's first label), the key
 * id (a hash prefix, not the key) and which of the two it was; never the crypto exception's text.
 */
export class SealedValueError extends Error {
  constructor(
    readonly purpose: string,
    readonly keyId: string,
    readonly reason: "unknown-key-id" | "does-not-open" | "malformed",
  ) {
    super(`sealed value could not be opened (${purpose}, ${reason})`);
    this.name = "SealedValueError";
  }
}

/** What the client is told about a SealedValueError: the request is understood, the stored secret it needs is not usable. */
export const sealedValueUnusable = () =>
  new AppError(
    ErrorCode.UNPROCESSABLE,
    "A secret stored for this request can no longer be opened; connect or enter it again",
  );

export const validationError = (message: string, details: FieldIssue[] = []) =>
  new AppError(ErrorCode.VALIDATION_ERROR, message, { details });
export const notFound = (what = "Resource") =>
  new AppError(ErrorCode.NOT_FOUND, `${what} not found`);
export const forbidden = (message = "Forbidden") => new AppError(ErrorCode.FORBIDDEN, message);
export const conflict = (message: string) => new AppError(ErrorCode.CONFLICT, message);

export function zodIssues(error: ZodError): FieldIssue[] {
  return error.issues.map((issue) => ({
    field: issue.path.length ? issue.path.map(String).join(".") : "body",
    message: issue.message,
  }));
}

export type ErrorBody = {
  error: string;
  code: string;
  status: number;
  details?: FieldIssue[];
  [k: string]: unknown;
};

export function errorBody(err: AppError, lowerCase: boolean): ErrorBody {
  const body: ErrorBody = {
    error: err.message,
    code: lowerCase ? lowerCaseCode(err.code) : err.code,
    status: err.status,
    ...err.extra,
  };
  if (err.details) body.details = err.details;
  return body;
}
