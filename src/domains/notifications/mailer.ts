import type { Db } from "../../db/client";
import { outboundEmails } from "../../db/schema";
import type { Config } from "../../env";
import { randomId } from "../../lib/crypto";
import { errorName, logJson } from "../../lib/log";

export type Mail = { to: string; subject: string; text: string; kind: string };

export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/**
 * Development and test transport: the message is written to the `outbound_emails` table instead of
 * leaving the machine, so tests (and a developer) can read what would have been sent.
 */
export class OutboxMailer implements Mailer {
  constructor(private readonly db: Db) {}

  async send(mail: Mail): Promise<void> {
    await this.db.insert(outboundEmails).values({
      id: randomId(),
      toAddress: mail.to.toLowerCase(),
      subject: mail.subject,
      textBody: mail.text,
      kind: mail.kind,
      createdAt: new Date().toISOString(),
    });
  }
}

/**
 * Production transport for an HTTP mail API that takes `{from, to, subject, text}` as JSON with a
 * Bearer key (Resend's `POST /emails` shape; Postmark-style services need only another URL and
 * field names). The API key is a secret and never logged.
 */
export class HttpApiMailer implements Mailer {
  constructor(
    private readonly url: string,
    private readonly apiKey: string,
    private readonly from: string,
    /** A provider that accepts the connection and never answers would hold the request that sends the mail. */
    private readonly timeoutMs = 10_000,
  ) {}

  async send(mail: Mail): Promise<void> {
    let res: Response;
    try {
      res = await fetch(this.url, {
        method: "POST",
        headers: { authorization: `Bearer ${this.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({
          from: this.from,
          to: [mail.to],
          subject: mail.subject,
          text: mail.text,
        }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      throw new MailApiError(
        0,
        undefined,
        err instanceof Error && /timeout|abort/i.test(`${err.name} ${err.message}`)
          ? "mail API timed out"
          : "mail API unreachable",
      );
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new MailApiError(
        res.status,
        retryAfterSeconds(res.headers.get("retry-after"), Date.now()),
      );
    }
    await res.body?.cancel();
  }
}

/** A refusal by the mail API; `retryAfter` is its Retry-After in seconds when it sent one. */
export class MailApiError extends Error {
  constructor(
    /** The API's status, or 0 when it did not answer (unreachable or timed out). */
    readonly status: number,
    readonly retryAfter: number | undefined,
    message = `mail API answered ${status}`,
  ) {
    super(message);
  }
}

/** Retry-After is delta-seconds or an HTTP-date (RFC 9110 section 10.2.3); anything else is ignored. */
export function retryAfterSeconds(value: string | null, now: number): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The HTTP transport of this configuration, or an error naming what is missing. */
export function httpMailer(config: Config): HttpApiMailer {
  if (!config.MAIL_API_URL || !config.MAIL_API_KEY || !config.MAIL_FROM) {
    throw new Error("MAIL_TRANSPORT=http needs MAIL_API_URL, MAIL_API_KEY and MAIL_FROM");
  }
  return new HttpApiMailer(
    config.MAIL_API_URL,
    config.MAIL_API_KEY,
    config.MAIL_FROM,
    config.MAIL_API_TIMEOUT_SECONDS * 1000,
  );
}

/**
 * Mail is a side channel of a state change that has already been committed: a failed send is
 * logged (without the message, which may carry an invitation token) and does not undo the change.
 * With the HTTP transport a refused send is queued for retries, so false here means not even the
 * queue took it.
 */
export async function sendQuietly(mailer: Mailer, mail: Mail): Promise<boolean> {
  try {
    await mailer.send(mail);
    return true;
  } catch (err) {
    logJson("error", "mail send failed", {
      kind: mail.kind,
      reason: err instanceof MailApiError ? err.message : errorName(err),
    });
    return false;
  }
}
