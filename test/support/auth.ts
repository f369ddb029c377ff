import { env } from "cloudflare:test";
import { SELF } from "./worker";
import { importJWK, SignJWT, type JWK } from "jose";

type Keys = { es: JWK & { kid: string }; rs: JWK & { kid: string } };
const keys = JSON.parse(env.TEST_IDP_KEYS) as Keys;

export type TokenOptions = {
  sub?: string | null;
  email?: string;
  /** The `email_verified` claim; absent unless given. */
  emailVerified?: boolean;
  admin?: boolean;
  /** Seconds since the last real sign-in. */
  authAge?: number | null;
  /** The sign-in's `auth_time` itself (epoch seconds), for a refreshed token of one sign-in; wins over authAge. */
  authTime?: number;
  /** The provider's session id claim. */
  sid?: string;
  expiresIn?: number;
  alg?: "ES256" | "RS256";
  issuer?: string;
  audience?: string;
  /** Sign with a key the service does not trust. */
  foreignKey?: boolean;
};

export async function signToken(opts: TokenOptions = {}): Promise<string> {
  const alg = opts.alg ?? "ES256";
  const jwk = alg === "ES256" ? keys.es : keys.rs;
  const key = opts.foreignKey
    ? (
        (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
          "sign",
          "verify",
        ])) as CryptoKeyPair
      ).privateKey
    : await importJWK(jwk, alg);
  const now = Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = { roles: opts.admin ? ["admin"] : [] };
  if (opts.email) claims.email = opts.email;
  if (opts.emailVerified !== undefined) claims.email_verified = opts.emailVerified;
  if (opts.authTime !== undefined) claims.auth_time = opts.authTime;
  else if (opts.authAge !== null) claims.auth_time = now - (opts.authAge ?? 0);
  if (opts.sid !== undefined) claims.sid = opts.sid;
  let jwt = new SignJWT(claims)
    .setProtectedHeader({ alg, kid: jwk.kid })
    .setIssuer(opts.issuer ?? "https://idp.test")
    .setAudience(opts.audience ?? "credential-vault-test")
    .setIssuedAt(now - 5)
    .setExpirationTime(now + (opts.expiresIn ?? 3600));
  if (opts.sub !== null) jwt = jwt.setSubject(opts.sub ?? crypto.randomUUID());
  return jwt.sign(key);
}

export type CallOptions = {
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  csrf?: boolean | string;
};

export class TestUser {
  readonly id: string;
  readonly email: string;
  private csrfToken?: string;
  /** Sent with every call, e.g. the `x-device-fingerprint` of a device this user registered. */
  readonly defaultHeaders: Record<string, string> = {};

  constructor(
    readonly token: string,
    id: string,
    email: string,
  ) {
    this.id = id;
    this.email = email;
  }

  static async create(opts: TokenOptions = {}): Promise<TestUser> {
    const id = opts.sub ?? crypto.randomUUID();
    const email = opts.email ?? `${id.slice(0, 8)}@example.test`;
    return new TestUser(await signToken({ ...opts, sub: id, email }), id, email);
  }

  /** The same person with another token: a refresh of this sign-in or a new sign-in, as `opts` say. */
  async withToken(opts: TokenOptions = {}): Promise<TestUser> {
    const other = new TestUser(
      await signToken({ ...opts, sub: this.id, email: this.email }),
      this.id,
      this.email,
    );
    Object.assign(other.defaultHeaders, this.defaultHeaders);
    return other;
  }

  async csrf(): Promise<string> {
    if (!this.csrfToken) {
      const res = await SELF.fetch("https://vault.test/api/auth/csrf-token", {
        headers: { authorization: `Bearer ${this.token}` },
      });
      this.csrfToken = ((await res.json()) as { csrfToken: string }).csrfToken;
    }
    return this.csrfToken;
  }

  /** Calls the worker as this user; mutating calls carry a CSRF token unless told not to. */
  async call(method: string, path: string, opts: CallOptions = {}): Promise<Response> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.token}`,
      ...this.defaultHeaders,
      ...opts.headers,
    };
    if (method !== "GET" && opts.csrf !== false) {
      headers["x-csrf-token"] = typeof opts.csrf === "string" ? opts.csrf : await this.csrf();
    }
    let body: string | undefined;
    if (opts.rawBody !== undefined) body = opts.rawBody;
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers["content-type"] ??= "application/json";
    }
    return SELF.fetch(`https://vault.test${path}`, { method, headers, body });
  }
}

export async function expectErrorBody(res: Response, status: number, code: string) {
  const body = (await res.json()) as { error: unknown; code: unknown; status: unknown };
  if (
    res.status !== status ||
    body.code !== code ||
    body.status !== status ||
    typeof body.error !== "string"
  ) {
    throw new Error(`expected ${status} ${code}, got ${res.status} ${JSON.stringify(body)}`);
  }
  return body as {
    error: string;
    code: string;
    status: number;
    details?: { field: string; message: string }[];
    [k: string]: unknown;
  };
}
