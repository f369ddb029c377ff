/**
 * The server pair a command line test file runs against (wrangler dev and the local OpenID
 * provider), one pair a file, or the pair CLI_SUITE_SERVER and CLI_SUITE_ISSUER name (to iterate
 * on the tests without starting wrangler each time); and the people of the file: an account at the
 * provider, a configuration and agent folder of its own, a sign-in through the provider's page, and
 * calls to the API with that sign-in's token.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { startWorker } from "../../bench/lib/harness.mjs";
import { DEV_CLIENT_ID, DEV_PASSWORD, startDevOidc } from "../../scripts/lib/dev-oidc.mjs";
import { freePort } from "../support/dovecot-lib.mjs";
import { signInAtProvider, vault, waitFor, type CliEnv } from "./support";

export type Servers = { base: string; issuer: string; stop: () => Promise<void> };

export async function startServers(name: string): Promise<Servers> {
  if (process.env.CLI_SUITE_SERVER && process.env.CLI_SUITE_ISSUER)
    return {
      base: process.env.CLI_SUITE_SERVER,
      issuer: process.env.CLI_SUITE_ISSUER,
      stop: async () => undefined,
    };
  const port = await freePort();
  const idp = await startDevOidc({
    port: await freePort(),
    redirectUris: [`http://127.0.0.1:${port}/api/auth/callback`],
    allowRegistration: true,
    quiet: true,
  });
  // The command line needs no web client: wrangler dev serves public/ as it is and never rebuilds it,
  // which would delete it under the browser suite's servers running beside this suite
  // (bench/lib/harness.mjs, configWithoutBuild).
  const worker = await startWorker({
    port,
    name,
    build: false,
    vars: {
      IDP_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: DEV_CLIENT_ID,
      OIDC_SCOPES: "openid email vault",
    },
  });
  return {
    base: worker.base,
    issuer: idp.issuer,
    stop: async () => {
      worker.stop();
      await idp.stop();
    },
  };
}

/** A person of the test: an account at the provider and a command line of their own. */
export type Person = {
  sub: string;
  email: string;
  env: CliEnv;
  /** A call to the API with the command line's current token. */
  call: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;
  cleanup: () => void;
};

/**
 * A call to the API as the command line signed in under `home` is: its current access token (read
 * anew each call, as the command line renews it), with a CSRF token as the web app sends one.
 */
export function apiAs(base: string, home: string): Person["call"] {
  const token = () =>
    (JSON.parse(readFileSync(join(home, "session.json"), "utf8")) as { tokens: { access: string } })
      .tokens.access;
  return async (method, path, body) => {
    const auth = { authorization: `Bearer ${token()}` };
    const csrf = (await (await fetch(`${base}/api/auth/csrf-token`, { headers: auth })).json()) as {
      csrfToken: string;
    };
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...auth, "x-csrf-token": csrf.csrfToken, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
}

export async function person(at: Servers, tag: string): Promise<Person> {
  const stamp = `${tag}-${Date.now()}`;
  const sub = `cli-${stamp}`;
  const email = `cli-${stamp}@example.test`;
  await fetch(`${at.issuer}/dev/users`, {
    method: "POST",
    body: new URLSearchParams({ sub, email }),
  });
  const home = mkdtempSync(join(tmpdir(), "vault-cli-home-"));
  const agent = mkdtempSync(join(tmpdir(), "vca-"));
  const env = { VAULT_CLI_HOME: home, VAULT_AGENT_DIR: agent, VAULT_NO_BROWSER: "1" };
  const call = apiAs(at.base, home);
  const cleanup = () => {
    for (const d of [home, agent]) rmSync(d, { recursive: true, force: true });
  };
  return { sub, email, env, call, cleanup };
}

/** `vault login` through the provider's login page (the test plays the browser). */
export async function signIn(at: Servers, p: Person) {
  let stderr = "";
  const login = vault(p.env, ["login", "--server", at.base, "--issuer", at.issuer], {
    onStderr: (t) => (stderr = t),
  });
  const [authUrl] = await waitFor(() => stderr, /http:\/\/localhost:\d+\/auth\?\S+/);
  expect((await signInAtProvider(authUrl, p.email, DEV_PASSWORD)).status).toBe(200);
  const done = await login;
  expect(done.code, done.stderr).toBe(0);
}
