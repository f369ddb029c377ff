import { randomBytes } from "node:crypto";
import type { TestProject } from "vitest/node";
import { startDovecot } from "./dovecot-lib.mjs";
// @ts-expect-error plain ESM helper shared with bench/reset.mjs
import { startResetSite } from "./reset-site-lib.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    resetSiteOrigin: string;
    resetImap: { port: number; user: string; password: string; mailboxes: Record<string, string> };
  }
}

export const RESET_MAILBOX_USER = "reset-owner@example.test";
/**
 * One mailbox per test file that reads reset mail: the watcher takes any fresh mail from the
 * site's sender, so two files sharing a mailbox could take each other's messages. `silent` is an
 * address the site never has an account for, so no reset mail ever reaches it.
 */
const FILE_MAILBOXES = {
  chat: "reset-chat@example.test",
  otp: "reset-otp@example.test",
  silent: "reset-silent@example.test",
  cancel: "reset-cancel@example.test",
};

/** vitest globalSetup: the local website whose forgot-password form mails into a real Dovecot. */
export default async function setup(project: TestProject) {
  const password = randomBytes(12).toString("base64url");
  const users = [RESET_MAILBOX_USER, ...Object.values(FILE_MAILBOXES)].map((user) => ({
    user,
    password,
  }));
  const dovecot = await startDovecot({ users, prefix: "reset-imap-" });
  const site = await startResetSite({
    mailboxFor: (email: string) =>
      users.some((u) => u.user === email) ? dovecot.maildirOf(email) : null,
  });
  project.provide("resetSiteOrigin", site.origin);
  project.provide("resetImap", {
    port: dovecot.port,
    user: RESET_MAILBOX_USER,
    password,
    mailboxes: FILE_MAILBOXES,
  });
  return async () => {
    await site.stop();
    await dovecot.stop();
  };
}
