import { TestUser } from "./auth";
import { outbox } from "./recovery";

/**
 * The mailbox check of an IMAP connection (src/domains/integrations/imap-proof.ts), finished as the
 * person's mail would finish it: the check message the vault sent (the development outbox) is
 * delivered into the Dovecot mailbox by `deliver`, standing in for the mail transport, and the
 * person then asks the vault to read it back.
 */
export async function latestCheckMail(address: string) {
  const mails = (await outbox(address)).filter((m) => m.kind === "integration.imap_verify");
  const mail = mails.at(-1);
  if (!mail) throw new Error(`no mailbox check was mailed to ${address}`);
  return mail;
}

export type Deliver = (to: string, subject: string, text: string) => Promise<void>;

export async function proveMailbox(
  user: TestUser,
  address: string,
  deliver: Deliver,
): Promise<void> {
  const mail = await latestCheckMail(address);
  await deliver(address, mail.subject, mail.textBody);
  const res = await user.call("POST", "/api/integrations/imap/verify", { body: {} });
  if (res.status !== 200) throw new Error(`imap verify failed: ${res.status} ${await res.text()}`);
}

/** Delivery into the reset site's Dovecot (test/support/reset-site.ts). */
export const resetSiteDelivery =
  (site: string): Deliver =>
  async (to, subject, text) => {
    const res = await fetch(`${site}/__test/deliver`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ to, subject, text }),
    });
    if (res.status !== 201) throw new Error(`delivery failed: ${res.status}`);
  };

/** Delivery into the discovery Dovecot (test/support/discovery-mailbox.ts). */
export const discoveryDelivery =
  (control: string): Deliver =>
  async (to, subject, text) => {
    const res = await fetch(`${control}/mailboxes/${encodeURIComponent(to)}`, {
      method: "POST",
      body: JSON.stringify({ messages: [{ from: "vault@example.test", to, subject, body: text }] }),
    });
    if (res.status !== 201) throw new Error(`delivery failed: ${res.status}`);
  };
