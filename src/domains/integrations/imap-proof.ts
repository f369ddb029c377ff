import type { Config } from "../../env";
import type { ImapClient } from "../../lib/imap/client";
import { quote } from "../../lib/imap/client";
import { actionMail } from "../notifications";

/**
 * Proof that an IMAP mailbox receives the mail of the address it claims. An IMAP login proves only
 * that its server accepts the password, and a self-run server accepts any login name, so an
 * address taken from the login name means nothing until mail sent to that address through the
 * service's own mail transport is read back through the mailbox.
 *
 * The check message's subject carries a public reference, which the mailbox is searched by, and a
 * secret code. The server never learns the code from us (we send it the reference only); a server
 * that does not receive the address's mail cannot show a message with both.
 */
export type ImapProof = { ref: string; code: string; sentAt: number };

/** The status of a connected mailbox whose proof has not yet been read back. */
export const PENDING_VERIFICATION = "pending_verification";
/** How long a check message may take to arrive; after that a new one must be sent. */
export const PROOF_TTL_MS = 24 * 60 * 60 * 1000;
/** The kind of the check message in the mail transport (outbox rows, logs). */
export const PROOF_MAIL_KIND = "integration.imap_verify";

const ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
const letters = (n: number) =>
  Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => ALPHABET[b % ALPHABET.length]).join(
    "",
  );

export function newProof(now = Date.now()): ImapProof {
  // The reference only needs to find the message; the code is what must be unguessable (~60 bits).
  return { ref: `VC-${letters(8)}`, code: letters(12), sentAt: now };
}

export function proofMail(config: Config, email: string, proof: ImapProof) {
  const origin = config.APP_ORIGIN ?? "";
  return actionMail(origin, {
    to: email,
    subject: `Mailbox check ${proof.ref} ${proof.code}`,
    body: [
      `Your credential vault${origin ? ` (${origin})` : ""} is checking that the IMAP mailbox you connected receives mail for ${email}.`,
      "",
      "There is nothing to type: the vault reads this message back through the mailbox.",
      "",
      "If you did not connect a mailbox, someone tried to claim this address; ignore this message and nothing will happen.",
      `Reference: ${proof.ref}`,
    ].join("\n"),
    action: "Once this message has arrived, open Mailboxes and choose “Check mailbox”",
    path: "/mailboxes",
    kind: PROOF_MAIL_KIND,
  });
}

/** IMAP SEARCH's date (RFC 3501 section 9, date-text): 26-Nov-2026. */
function imapDate(ms: number): string {
  const d = new Date(ms);
  const month = [
    "Jan",
    "Feb",
    "Mar",
    "Apr",
    "May",
    "Jun",
    "Jul",
    "Aug",
    "Sep",
    "Oct",
    "Nov",
    "Dec",
  ][d.getUTCMonth()];
  return `${d.getUTCDate()}-${month}-${d.getUTCFullYear()}`;
}

/**
 * Looks for the check message in the INBOX: a server-side search by the public reference since the
 * day before it was sent (time zones), then the Subject of the matches only (no body is read),
 * which must carry the secret code.
 */
export async function findProof(client: ImapClient, proof: ImapProof): Promise<boolean> {
  await client.examine("INBOX");
  const uids = await client.uidSearch(
    `SINCE ${imapDate(proof.sentAt - 24 * 60 * 60 * 1000)} SUBJECT ${quote(proof.ref)}`,
  );
  let found = false;
  await client.fetchHeaderFields(uids.slice(-20), ["SUBJECT"], (_uid, headers) => {
    if (headers.replace(/\r?\n[ \t]+/g, " ").includes(proof.code)) found = true;
  });
  return found;
}
