/**
 * Sign-in with the OpenID provider as a native app (RFC 8252): the authorization code flow with
 * PKCE (RFC 7636) and a redirect to a loopback port this process listens on for the one answer, or
 * the device authorization grant (RFC 8628) on a machine without a browser. The access token is the
 * provider's JWT the worker verifies, sent as a Bearer token like the extension's; a refresh token,
 * when the provider gives one, renews it without a new sign-in.
 */
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { CliError, EXIT } from "./errors";
import { loadSignIn, saveSignIn, type SignIn, type Tokens } from "./state";

type Discovery = {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  device_authorization_endpoint?: string;
  scopes_supported?: string[];
};

const b64url = (b: Buffer) => b.toString("base64url");
const SCOPES = ["openid", "email", "vault"];
const LOGIN_TIMEOUT_MS = 5 * 60_000;
/** Renewed this long before it expires, so a command never starts with a token about to lapse. */
const RENEW_EARLY_S = 60;

export async function discover(issuer: string): Promise<Discovery> {
  const url = `${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`;
  const res = await fetch(url).catch(() => null);
  if (!res?.ok) throw new CliError(`The OpenID provider at ${issuer} did not answer`, EXIT.SERVER);
  const doc = (await res.json()) as Discovery;
  if (doc.issuer !== issuer.replace(/\/$/, "") && doc.issuer !== issuer)
    throw new CliError(`The provider names itself ${doc.issuer}, not ${issuer}`, EXIT.SERVER);
  return doc;
}

function scopeFor(doc: Discovery): string {
  // Where the provider lists offline_access, asking for it is how a refresh token is granted.
  const offline = doc.scopes_supported?.includes("offline_access") ? ["offline_access"] : [];
  return [...SCOPES, ...offline].join(" ");
}

type TokenAnswer = {
  access_token?: string;
  refresh_token?: string;
  expires_in?: number;
  error?: string;
  error_description?: string;
};

async function tokenRequest(doc: Discovery, form: Record<string, string>): Promise<TokenAnswer> {
  const res = await fetch(doc.token_endpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: new URLSearchParams(form),
  }).catch(() => null);
  if (!res) throw new CliError("The OpenID provider did not answer", EXIT.SERVER);
  return ((await res.json().catch(() => ({}))) ?? {}) as TokenAnswer;
}

function tokensOf(answer: TokenAnswer, previousRefresh: string | null = null): Tokens {
  if (!answer.access_token)
    throw new CliError(
      `The provider gave no token: ${answer.error ?? "no answer"}${answer.error_description ? ` (${answer.error_description})` : ""}`,
      EXIT.SIGNED_OUT,
    );
  return {
    access: answer.access_token,
    refresh: answer.refresh_token ?? previousRefresh,
    expiresAt: Math.floor(Date.now() / 1000) + (answer.expires_in ?? 300),
  };
}

function openBrowser(url: string): void {
  const cmd =
    process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer" : "xdg-open";
  try {
    spawn(cmd, [url], { stdio: "ignore", detached: true })
      .on("error", () => undefined)
      .unref();
  } catch {
    /* no browser to open: the printed address is enough */
  }
}

const DONE_PAGE =
  "<!doctype html><meta charset=utf-8><title>Signed in</title><p>The command line is signed in. You can close this tab.";

/**
 * RFC 8252 section 7.3: a loopback redirect on a port chosen now, PKCE with S256 and a state
 * checked on the way back. `say` prints the address to open (to stderr: stdout stays for results).
 */
export async function loginWithBrowser(
  doc: Discovery,
  clientId: string,
  opts: { openBrowser: boolean; say: (line: string) => void },
): Promise<Tokens> {
  const verifier = b64url(randomBytes(32));
  const challenge = b64url(createHash("sha256").update(verifier).digest());
  const state = b64url(randomBytes(16));
  // Loaded here, not at the top: importing node:http loads Node's fetch implementation with it,
  // a fifth of every command's start, and only a sign-in listens for HTTP.
  const { createServer } = await import("node:http");
  let settle!: (r: { code: string } | { error: string }) => void;
  const answered = new Promise<{ code: string } | { error: string }>((r) => (settle = r));
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? "/", "http://127.0.0.1");
    if (u.pathname !== "/callback") return void res.writeHead(404).end();
    // Another page's request to this port is not the provider's answer to this sign-in.
    if (u.searchParams.get("state") !== state)
      return void res.writeHead(400).end("Unknown sign-in");
    const code = u.searchParams.get("code");
    res.writeHead(code ? 200 : 400, { "content-type": "text/html; charset=utf-8" });
    res.end(code ? DONE_PAGE : "Sign-in refused: go back to the command line.");
    settle(code ? { code } : { error: u.searchParams.get("error") ?? "no code" });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  const auth = new URL(doc.authorization_endpoint);
  for (const [k, v] of Object.entries({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: scopeFor(doc),
    code_challenge: challenge,
    code_challenge_method: "S256",
    state,
    prompt: "login",
  }))
    auth.searchParams.set(k, v);
  opts.say(`Open this address to sign in:\n${auth.href}`);
  if (opts.openBrowser) openBrowser(auth.href);
  const timer = setTimeout(() => settle({ error: "timed out" }), LOGIN_TIMEOUT_MS);
  try {
    const outcome = await answered;
    if ("error" in outcome)
      throw new CliError(`Sign-in did not finish: ${outcome.error}`, EXIT.SIGNED_OUT);
    return tokensOf(
      await tokenRequest(doc, {
        grant_type: "authorization_code",
        code: outcome.code,
        redirect_uri: redirectUri,
        client_id: clientId,
        code_verifier: verifier,
      }),
    );
  } finally {
    clearTimeout(timer);
    server.close();
  }
}

/** RFC 8628: a code to enter on another device's browser, and polling at the provider's interval. */
export async function loginWithDeviceCode(
  doc: Discovery,
  clientId: string,
  say: (line: string) => void,
): Promise<Tokens> {
  if (!doc.device_authorization_endpoint)
    throw new CliError(
      "This OpenID provider does not offer the device authorization grant: sign in without --device",
      EXIT.USAGE,
    );
  const res = await fetch(doc.device_authorization_endpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ client_id: clientId, scope: scopeFor(doc) }),
  });
  const grant = (await res.json()) as {
    device_code?: string;
    user_code?: string;
    verification_uri?: string;
    verification_uri_complete?: string;
    interval?: number;
    expires_in?: number;
    error?: string;
  };
  if (!grant.device_code || !grant.user_code || !grant.verification_uri)
    throw new CliError(`The provider refused: ${grant.error ?? res.status}`, EXIT.SIGNED_OUT);
  say(`On any device, open ${grant.verification_uri} and enter the code ${grant.user_code}`);
  if (grant.verification_uri_complete) say(`(or open ${grant.verification_uri_complete})`);
  let interval = (grant.interval ?? 5) * 1000;
  const until = Date.now() + (grant.expires_in ?? 600) * 1000;
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, interval));
    const answer = await tokenRequest(doc, {
      grant_type: "urn:ietf:params:oauth:grant-type:device_code",
      device_code: grant.device_code,
      client_id: clientId,
    });
    if (answer.error === "authorization_pending") continue;
    // RFC 8628 section 3.5: slow_down adds five seconds to every later wait.
    if (answer.error === "slow_down") {
      interval += 5000;
      continue;
    }
    return tokensOf(answer);
  }
  throw new CliError("The code expired before the sign-in finished", EXIT.SIGNED_OUT);
}

/**
 * The stored sign-in with an access token good for at least a minute more: renewed with the
 * refresh token when it is near its end, else the person is asked to sign in again.
 */
export async function freshSignIn(): Promise<SignIn> {
  const s = loadSignIn();
  if (!s) throw new CliError("Not signed in: run `vault login` first", EXIT.SIGNED_OUT);
  if (s.tokens.expiresAt - RENEW_EARLY_S > Date.now() / 1000) return s;
  if (!s.tokens.refresh)
    throw new CliError("The sign-in has expired: run `vault login` again", EXIT.SIGNED_OUT);
  const doc = await discover(s.issuer);
  const answer = await tokenRequest(doc, {
    grant_type: "refresh_token",
    refresh_token: s.tokens.refresh,
    client_id: s.clientId,
  });
  if (!answer.access_token)
    throw new CliError("The sign-in has expired: run `vault login` again", EXIT.SIGNED_OUT);
  const renewed = { ...s, tokens: tokensOf(answer, s.tokens.refresh) };
  saveSignIn(renewed);
  return renewed;
}

/** The claims the command line shows (who is signed in); the server checks the signature. */
export function claimsOf(token: string): { sub: string; email: string | null } {
  try {
    const c = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString()) as {
      sub?: unknown;
      email?: unknown;
    };
    if (typeof c.sub !== "string" || !c.sub) throw new Error("no subject");
    return { sub: c.sub, email: typeof c.email === "string" ? c.email : null };
  } catch {
    throw new CliError(
      "The provider's access token is not a JWT this vault reads",
      EXIT.SIGNED_OUT,
    );
  }
}
