import { randomBytes } from "node:crypto";
import type { TestProject } from "vitest/node";
import { startDovecot } from "./dovecot-lib.mjs";
// @ts-expect-error plain ESM helper shared with bench/reset.mjs
import { startResetSite } from "./reset-site-lib.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    resetSiteOrigin: string;
    resetImap: { port: number; user: string; password: string };
  }
}

export const RESET_MAILBOX_USER = "reset-owner@example.test";

/** vitest globalSetup: the local website whose forgot-password form mails into a real Dovecot. */
export default async function setup(project: TestProject) {
  const password = randomBytes(12).toString("base64url");
  const dovecot = await startDovecot({ users: [{ user: RESET_MAILBOX_USER, password }], prefix: "reset-imap-" });
  const site = await startResetSite({ mailboxFor: (email: string) => (email === RESET_MAILBOX_USER ? dovecot.maildirOf(RESET_MAILBOX_USER) : null) });
  project.provide("resetSiteOrigin", site.origin);
  project.provide("resetImap", { port: dovecot.port, user: RESET_MAILBOX_USER, password });
  return async () => {
    await site.stop();
    dovecot.stop();
  };
}
