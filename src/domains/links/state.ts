import type { SecureLinkRow } from "../../db/schema";
import { AppError, ErrorCode } from "../../lib/errors";
import { MAX_FAILED_ATTEMPTS, MAX_FAILED_CODES, type LinkState } from "./schema";

/** A link's state as its owner and its openers see it; `locked` by passphrases or by codes alike. */
export function stateOf(row: SecureLinkRow, now = new Date().toISOString()): LinkState {
  if (row.revokedAt) return "revoked";
  if (row.failedAttempts >= MAX_FAILED_ATTEMPTS || row.failedCodes >= MAX_FAILED_CODES)
    return "locked";
  if (row.viewsUsed >= row.maxViews) return "used_up";
  if (row.expiresAt <= now || row.contentPurgedAt) return "expired";
  return "active";
}

const STATE_MESSAGE: Record<Exclude<LinkState, "active">, string> = {
  expired: "This link has expired",
  used_up: "This link has been opened as many times as allowed",
  revoked: "The sender revoked this link",
  locked: "This link is locked after too many wrong passphrases or codes",
};

export const gone = (state: Exclude<LinkState, "active">) =>
  new AppError(ErrorCode.GONE, STATE_MESSAGE[state], { extra: { state } });
