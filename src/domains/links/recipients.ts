import type { Db } from "../../db/client";
import type { SecureLinkRow } from "../../db/schema";
import { AppError, ErrorCode } from "../../lib/errors";
import { hmacSha256, randomToken, toHex } from "../../lib/crypto";
import type { Mail } from "../notifications";
import * as repo from "./repo";
import {
  CODE_TTL_MS,
  CODE_WINDOW_MS,
  MAX_CODE_ATTEMPTS,
  MAX_CODES_PER_ADDRESS,
  MAX_CODES_PER_WINDOW,
  MAX_FAILED_CODES,
} from "./schema";
import { gone } from "./state";

/**
 * Links for named recipients (docs/decisions/sharing.md, "Sharing: secure links (a secret or a file for anyone, the key in the link)"). The owner's list is kept
 * as keyed hashes: HMAC under a server secret over the link id and the normalised address, so a
 * copy of the table names no address, and the same address gives unrelated hashes on two links.
 * A claimed address is checked by hashing it the same way.
 */
export const normaliseEmail = (email: string) => email.normalize("NFC").trim().toLowerCase();

export async function recipientHash(
  secret: string,
  linkId: string,
  email: string,
): Promise<string> {
  return toHex(
    await hmacSha256(secret, `secure-link-recipient|${linkId}|${normaliseEmail(email)}`),
  );
}

export async function recipientHashes(
  secret: string,
  linkId: string,
  emails: string[],
): Promise<string[]> {
  const unique = [...new Set(emails.map(normaliseEmail))];
  return Promise.all(unique.map((e) => recipientHash(secret, linkId, e)));
}

/** A code is bound to the open attempt it was mailed for: the same digits open no other attempt. */
export async function codeHash(secret: string, challenge: string, code: string): Promise<string> {
  return toHex(await hmacSha256(secret, `secure-link-code|${challenge}|${code}`));
}

/** Six digits, uniform (rejection sampling keeps 000000–999999 equally likely). */
export function sixDigits(): string {
  const buf = new Uint32Array(1);
  for (;;) {
    crypto.getRandomValues(buf);
    if (buf[0]! < 4_294_000_000) return String(buf[0]! % 1_000_000).padStart(6, "0");
  }
}

export const CODE_SENT_MESSAGE =
  "If this address may open the link, a 6-digit code is on its way to it. It works for 10 minutes.";

export function codeMail(to: string, code: string, sender: string | null): Mail {
  const from = sender
    ? `${sender} shared a secure link with you.`
    : "Someone shared a secure link with you.";
  return {
    to,
    subject: "Your code to open a secure link",
    kind: "secure_link.code",
    text: `${from}\n\nYour one-time code is ${code}. Enter it on the link's page; it works for 10 minutes, once.\n\nIf you did not ask for it, ignore this mail: nobody can open the link without the code.\n`,
  };
}

/** What an unlisted address's attempt holds for a code hash: not hex, so no code's hash equals it. */
export const NO_CODE = "none";

/**
 * Starts an open attempt. Every address gets the same answer and a stored attempt; only a listed
 * one gets a code by mail (through `send`, which the caller runs beside the answer so the timing
 * does not tell either). An unlisted address's attempt holds no code at all, and the open checks
 * the attempt's address against the list besides, so it opens nothing whatever is guessed.
 * The caps count every address alike, so a refusal does not tell either.
 */
export async function startAttempt(
  db: Db,
  secret: string,
  row: SecureLinkRow,
  email: string,
  send: (mail: Mail) => void,
) {
  const now = Date.now();
  const challenge = randomToken(16);
  const code = sixDigits();
  const addressHash = await recipientHash(secret, row.id, email);
  const listed = (row.recipientHashes ?? []).includes(addressHash);
  // Hashed either way, so both kinds of address do the same work before the answer.
  const hash = await codeHash(secret, challenge, code);
  const expiresAt = new Date(now + CODE_TTL_MS).toISOString();
  const ok = await repo.insertCode(
    db,
    {
      id: challenge,
      ownerId: row.ownerId,
      linkId: row.id,
      codeHash: listed ? hash : NO_CODE,
      addressHash,
      expiresAt,
      createdAt: new Date(now).toISOString(),
    },
    {
      windowStart: new Date(now - CODE_WINDOW_MS).toISOString(),
      perLink: MAX_CODES_PER_WINDOW,
      perAddress: MAX_CODES_PER_ADDRESS,
    },
  );
  if (!ok)
    throw new AppError(
      ErrorCode.RATE_LIMITED,
      "Too many codes were asked for this link or address; wait a few minutes",
      { extra: { retry_after: Math.ceil(CODE_WINDOW_MS / 1000) } },
    );
  if (listed) send(codeMail(normaliseEmail(email), code, row.senderEmail));
  return { challenge, expires_at: expiresAt, message: CODE_SENT_MESSAGE };
}

const codeRefusal = (reason: string, message: string, attemptsLeft: number) =>
  new AppError(ErrorCode.FORBIDDEN, message, { extra: { reason, attempts_left: attemptsLeft } });
const codeLocked = () => codeRefusal("code_locked", "Too many wrong codes; ask for a new one", 0);

/**
 * Why a recipients-only open was not counted on the code's side, or null when the code is right
 * (the refusal then lies elsewhere). A wrong code counts against its attempt and the link; the
 * link locks for good at MAX_FAILED_CODES, as at MAX_FAILED_ATTEMPTS passphrases. An attempt
 * asked for an unlisted address takes the wrong-code path whatever code comes with it.
 */
export async function codeProblem(
  db: Db,
  secret: string,
  row: SecureLinkRow,
  proof: { challenge: string; code: string } | undefined,
): Promise<AppError | null> {
  const linkLeft = MAX_FAILED_CODES - row.failedCodes;
  if (!proof)
    return codeRefusal(
      "code_required",
      "Enter your email address to get a code",
      Math.min(MAX_CODE_ATTEMPTS, linkLeft),
    );
  const now = new Date().toISOString();
  const attempt = await repo.findCode(db, row.id, proof.challenge);
  if (!attempt || attempt.consumedAt || attempt.expiresAt <= now)
    return codeRefusal("code_expired", "This code has expired or was used; ask for a new one", 0);
  if (attempt.attempts >= MAX_CODE_ATTEMPTS) return codeLocked();
  const listed =
    attempt.addressHash !== null && (row.recipientHashes ?? []).includes(attempt.addressHash);
  const right = (await codeHash(secret, proof.challenge, proof.code)) === attempt.codeHash;
  if (listed && right) return null;
  const tries = await repo.countCodeFailure(
    db,
    row.id,
    proof.challenge,
    { codes: MAX_FAILED_CODES, perAttempt: MAX_CODE_ATTEMPTS },
    now,
  );
  if (tries.attempt === null) return codeLocked();
  if (tries.link === null || tries.link >= MAX_FAILED_CODES) return gone("locked");
  const left = Math.min(MAX_CODE_ATTEMPTS - tries.attempt, MAX_FAILED_CODES - tries.link);
  return left > 0 ? codeRefusal("wrong_code", "Wrong code", left) : codeLocked();
}
