import type { Db } from "../../db/client";
import { outboundEmails } from "../../db/schema";
import type { Config } from "../../env";
import { randomId } from "../../lib/crypto";

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
  ) {}

  async send(mail: Mail): Promise<void> {
    const res = await fetch(this.url, {
      method: "POST",
      headers: { authorization: `Bearer ${this.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ from: this.from, to: [mail.to], subject: mail.subject, text: mail.text }),
    });
    if (!res.ok) throw new Error(`mail API answered ${res.status}`);
  }
}

/** MAIL_TRANSPORT selects the transport: `outbox` (default) or `http` (MAIL_API_URL, MAIL_API_KEY, MAIL_FROM). */
export function mailerFor(config: Config, db: Db): Mailer {
  if (config.MAIL_TRANSPORT === "http") {
    if (!config.MAIL_API_URL || !config.MAIL_API_KEY || !config.MAIL_FROM) {
      throw new Error("MAIL_TRANSPORT=http needs MAIL_API_URL, MAIL_API_KEY and MAIL_FROM");
    }
    return new HttpApiMailer(config.MAIL_API_URL, config.MAIL_API_KEY, config.MAIL_FROM);
  }
  return new OutboxMailer(db);
}

/**
 * Mail is a side channel of a state change that has already been committed: a failed send is
 * logged (without the message, which may carry an invitation token) and does not undo the change.
 */
export async function sendQuietly(mailer: Mailer, mail: Mail): Promise<boolean> {
  try {
    await mailer.send(mail);
    return true;
  } catch (err) {
    console.error("mail send failed", mail.kind, err instanceof Error ? err.message : "unknown error");
    return false;
  }
}
