import { describe, expect, it } from "vitest";
import { expectErrorBody, TestUser } from "../support/auth";
import { discoveryDelivery, latestCheckMail } from "../support/imap-proof";
import {
  connectImap,
  discoveryImap,
  imapCommands,
  imapMailbox,
  integrations,
} from "../support/mail-provider";
import { resetUser } from "../reset/support";

// An IMAP login proves only that a server accepts a password, and a self-run server accepts any
// login name: the address it claims counts (for resets and discovery) only once a check message
// mailed to that address through the service's mail transport is read back through the mailbox.
const deliver = discoveryDelivery(discoveryImap.control);
const verify = (user: TestUser, body: Record<string, unknown> = {}) =>
  user.call("POST", "/api/integrations/imap/verify", { body });
const refOf = (subject: string) => /(VC-[A-Z0-9]+)/.exec(subject)![1]!;

/** A user who connected a mailbox that receives none of its address's mail (the check message goes elsewhere). */
async function claimed() {
  const user = await resetUser();
  const box = await imapMailbox([
    {
      from: "Welcome <hello@shop.example>",
      subject: "Welcome to Shop",
      date: new Date().toUTCString(),
    },
  ]);
  const connected = await connectImap(user, box, false);
  return { user, box, connected };
}

describe("IMAP mailbox ownership", () => {
  it("a connected IMAP mailbox is pending until proven: no reset to its address, no scan of it", async () => {
    const { user, box, connected } = await claimed();
    expect(connected).toEqual({ success: true, email: box.user, status: "pending_verification" });
    expect(await integrations(user)).toMatchObject([
      { provider: "imap", email: box.user, status: "pending_verification" },
    ]);
    const mail = await latestCheckMail(box.user);
    expect(mail).toMatchObject({ toAddress: box.user, kind: "integration.imap_verify" });

    const reset = await user.call("POST", "/api/tasks/reset", {
      body: { serviceUrl: "https://shop.example/forgot", email: box.user },
    });
    await expectErrorBody(reset, 422, "UNPROCESSABLE");
    await expectErrorBody(
      await user.call("POST", "/api/accounts", { body: { email: box.user } }),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await user.call("POST", "/api/accounts", { body: {} }),
      422,
      "UNPROCESSABLE",
    );
    await expectErrorBody(
      await user.call("POST", "/api/discover-accounts", { body: {} }),
      422,
      "UNPROCESSABLE",
    );
  });

  it("checking before the message is there is 422 and changes nothing", async () => {
    const { user } = await claimed();
    const err = await expectErrorBody(await verify(user), 422, "UNPROCESSABLE");
    expect(err.error).toMatch(/has not arrived/);
    expect((await integrations(user))[0]!.status).toBe("pending_verification");
  });

  it("a forged message carrying the reference the server was searched for, without the code, does not prove the address", async () => {
    const { user, box } = await claimed();
    const { subject } = await latestCheckMail(box.user);
    await deliver(box.user, `Mailbox check ${refOf(subject)} AAAAAAAAAAAA`, "forged");
    await expectErrorBody(await verify(user), 422, "UNPROCESSABLE");
    // The mailbox's server was only ever given the reference, never the code.
    const code = subject.split(" ").at(-1)!;
    const commands = await imapCommands(box.user);
    expect(commands.some((c) => c.includes(refOf(subject)))).toBe(true);
    expect(commands.some((c) => c.includes(code))).toBe(false);
    expect((await integrations(user))[0]!.status).toBe("pending_verification");
  });

  it("the check message read back through the mailbox makes it active; it then counts for scans", async () => {
    const { user, box } = await claimed();
    const mail = await latestCheckMail(box.user);
    await deliver(box.user, mail.subject, mail.textBody);
    const res = await verify(user);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, email: box.user, status: "active" });
    expect((await integrations(user))[0]!.status).toBe("active");
    expect((await user.call("POST", "/api/accounts", { body: { email: box.user } })).status).toBe(
      200,
    );
    // Checked again once active: still active, no new message mailed.
    expect(await (await verify(user)).json()).toEqual({
      success: true,
      email: box.user,
      status: "active",
    });
  });

  it("a new check message replaces the old one, which no longer counts", async () => {
    const { user, box } = await claimed();
    const first = await latestCheckMail(box.user);
    const res = await verify(user, { resend: true });
    expect(await res.json()).toEqual({
      success: true,
      email: box.user,
      status: "pending_verification",
    });
    const second = await latestCheckMail(box.user);
    expect(second.subject).not.toBe(first.subject);
    await deliver(box.user, first.subject, first.textBody);
    await expectErrorBody(await verify(user), 422, "UNPROCESSABLE");
    await deliver(box.user, second.subject, second.textBody);
    expect((await verify(user)).status).toBe(200);
  });

  it("reconnecting needs a new proof; without an IMAP mailbox the check is 404; bad bodies are 400", async () => {
    const { user, box } = await claimed();
    const mail = await latestCheckMail(box.user);
    await deliver(box.user, mail.subject, mail.textBody);
    expect((await verify(user)).status).toBe(200);
    await connectImap(user, box, false);
    expect((await integrations(user))[0]!.status).toBe("pending_verification");
    const stranger = await TestUser.create();
    await expectErrorBody(await verify(stranger), 404, "NOT_FOUND");
    await expectErrorBody(await verify(user, { resend: "yes" }), 400, "VALIDATION_ERROR");
    await expectErrorBody(await verify(user, { code: "123" }), 400, "VALIDATION_ERROR");
  });
});
