/**
 * The real components the automation journeys run against, started once for the browser suite:
 * a private Dovecot whose mailboxes the local reset site mails into, the discovery Dovecot with its
 * control API, the local OAuth mail provider (Gmail- and Graph-shaped), the alias provider and the
 * Pwned Passwords range stand-in. The
 * same servers the worker suite uses; their addresses reach wrangler dev as vars.
 */
import { randomBytes } from "node:crypto";
import type { TestProject } from "vitest/node";
import aliasProviderSetup from "../../../test/support/alias-provider-setup";
import discoveryMailboxSetup from "../../../test/support/discovery-mailbox";
import { startDovecot } from "../../../test/support/dovecot-lib.mjs";
import mailProviderSetup, {
  clientId,
  clientSecret,
  PROVIDERS,
} from "../../../test/support/mail-provider-server";
import { startResetSite } from "../../../test/support/reset-site-lib.mjs";
import pwnedRangeSetup from "../../../test/support/pwned-range-setup";

export type AutomationContext = {
  resetSite: string;
  resetImap: { port: number; password: string; users: string[] };
  mailProviderUrl: string;
  aliasProviderUrl: string;
  discoveryImap: { port: number; directPort: number; control: string };
  /** The Pwned Passwords stand-in (test/support/pwned-range-server.ts): its control API and request log. */
  pwnedRangeUrl: string;
};

declare module "vitest" {
  export interface ProvidedContext {
    automation: AutomationContext;
  }
}

/** One reset mailbox per journey that reads reset mail: the watcher takes any fresh mail from the site. */
const RESET_USERS = [
  "web-reset@example.test",
  "web-reset-closed@example.test",
  "web-reset-cancel@example.test",
  "web-reset-chat@example.test",
  "web-reset-spare@example.test",
];
const PREFIX = { mailx: "MAILX", maily: "MAILY", codehost: "CODEHOST", idp: "IDP_OAUTH" } as const;

/** Runs another suite's globalSetup here, keeping what it provides. */
async function run<T>(
  setup: (p: TestProject) => Promise<() => unknown>,
  key: string,
): Promise<{ value: T; stop: () => unknown }> {
  const provided: Record<string, unknown> = {};
  const stop = await setup({
    provide: (k: string, v: unknown) => void (provided[k] = v),
  } as unknown as TestProject);
  return { value: provided[key] as T, stop };
}

export async function startAutomationComponents(appOrigin: string) {
  const password = randomBytes(12).toString("base64url");
  const dovecot = await startDovecot({
    users: RESET_USERS.map((user) => ({ user, password })),
    prefix: "browser-reset-imap-",
  });
  const site = await startResetSite({
    mailboxFor: (email: string) => (RESET_USERS.includes(email) ? dovecot.maildirOf(email) : null),
  });
  const mail = await run<string>(mailProviderSetup, "mailProviderUrl");
  const alias = await run<string>(aliasProviderSetup, "aliasProviderUrl");
  const discovery = await run<AutomationContext["discoveryImap"]>(
    discoveryMailboxSetup,
    "discoveryImap",
  );
  const pwned = await run<string>(pwnedRangeSetup, "pwnedRangeUrl");
  const context: AutomationContext = {
    resetSite: site.origin as string,
    resetImap: { port: dovecot.port, password, users: RESET_USERS },
    mailProviderUrl: mail.value,
    aliasProviderUrl: alias.value,
    discoveryImap: discovery.value,
    pwnedRangeUrl: pwned.value,
  };
  const vars: Record<string, string> = {
    IMAP_ALLOWED_PORTS: `143,993,${dovecot.port},${discovery.value.port}`,
    RESET_EMAIL_WAIT_SECONDS: "30",
    // The OAuth callback comes back to this worker and sends the browser on to its own origin.
    OAUTH_REDIRECT_BASE: appOrigin,
    APP_ORIGIN: appOrigin,
    DOH_URL: `${mail.value}/dns-query`,
    ALIAS_PROVIDER_A_URL: `${alias.value}/a`,
    ALIAS_PROVIDER_B_URL: `${alias.value}/b`,
    ALIAS_PROVIDER_B_DOMAIN: "anonaddy.test",
    PWNED_RANGE_URL: `${pwned.value}/range/`,
    ...Object.fromEntries(
      PROVIDERS.flatMap((p) => [
        [`${PREFIX[p]}_AUTH_URL`, `${mail.value}/${p}/authorize`],
        [`${PREFIX[p]}_TOKEN_URL`, `${mail.value}/${p}/token`],
        [`${PREFIX[p]}_REVOKE_URL`, `${mail.value}/${p}/revoke`],
        [`${PREFIX[p]}_API_URL`, `${mail.value}/${p}`],
        [`${PREFIX[p]}_CLIENT_ID`, clientId(p)],
        [`${PREFIX[p]}_CLIENT_SECRET`, clientSecret(p)],
      ]),
    ),
  };
  return {
    context,
    vars,
    async stop() {
      await pwned.stop();
      await discovery.stop();
      await alias.stop();
      await mail.stop();
      await site.stop();
      await dovecot.stop();
    },
  };
}
