import { tokensFor } from "./tokens";
import { dbFor, directoryDb, type Db } from "../../db/client";
import type { MailIntegrationRow } from "../../db/schema";
import type { Bindings, Config } from "../../env";
import { randomId } from "../../lib/crypto";
import { AppError, ErrorCode, notFound } from "../../lib/errors";
import { guardImapTarget, openImap, sealImap, unsealImap, type ImapCredentials } from "./imap";
import { findProof, newProof, PENDING_VERIFICATION, PROOF_TTL_MS, proofMail } from "./imap-proof";
import { mailerFor } from "../notifications";
import {
  buildAuthUrl,
  consumeState,
  exchangeCode,
  revokeGrant,
  sealTokens,
  StateError,
  unsealTokens,
} from "./oauth";
import { providerConfig, type OAuthProvider, type ProviderConfig } from "./providers";
import * as repo from "./repo";

export function toIntegration(row: MailIntegrationRow) {
  return {
    provider: row.provider,
    email: row.email,
    connectedAt: row.connectedAt,
    status: row.status,
  };
}

/** The redirect URI registered with the provider: the callback path on the service's origin. */
export function redirectUri(config: Config, requestUrl: string, callbackPath: string): string {
  const base = config.OAUTH_REDIRECT_BASE ?? config.APP_ORIGIN ?? new URL(requestUrl).origin;
  return new URL(callbackPath, base).toString();
}

export class IntegrationService {
  constructor(
    private readonly db: Db,
    private readonly env: Bindings,
    private readonly config: Config,
  ) {}

  async list(userId: string) {
    return (await repo.listIntegrations(this.db, userId)).map(toIntegration);
  }

  async authUrl(
    userId: string,
    provider: OAuthProvider,
    redirect: string,
    flow: string,
  ): Promise<string> {
    // The state is read back by a callback that may carry no session, so it lives in the directory.
    return buildAuthUrl(
      directoryDb(this.env),
      this.config,
      providerConfig(this.config, provider),
      userId,
      redirect,
      flow,
    );
  }

  /**
   * Completes the authorization code flow. Returns the dashboard redirect of DECISIONS D8; any
   * failure is reported there as a reason code, never with the provider's own words.
   */
  async callback(
    provider: OAuthProvider,
    q: { code?: string; state?: string; error?: string },
    callerId: string | null,
    flow: string | undefined,
    redirect: string,
  ): Promise<string> {
    const done = (status: string, reason?: string) => {
      const u = new URL("/dashboard", this.config.APP_ORIGIN ?? "http://localhost");
      u.searchParams.set("integration", provider);
      u.searchParams.set("status", status);
      if (reason) u.searchParams.set("reason", reason);
      return this.config.APP_ORIGIN ? u.toString() : `${u.pathname}${u.search}`;
    };
    if (!q.state) return done("error", "invalid_state");
    let userId: string;
    let verifier: string;
    try {
      ({ userId, verifier } = await consumeState(
        directoryDb(this.env),
        this.config,
        provider,
        q.state,
        callerId,
        flow,
      ));
    } catch (err) {
      if (err instanceof StateError) return done("error", err.message);
      throw err;
    }
    if (q.error)
      return done("error", q.error === "access_denied" ? "access_denied" : "provider_error");
    if (!q.code) return done("error", "missing_code");
    const p = providerConfig(this.config, provider);
    let result: Awaited<ReturnType<typeof exchangeCode>>;
    try {
      result = await exchangeCode(p, q.code, verifier, redirect);
    } catch {
      return done("error", "token_exchange_failed");
    }
    const now = new Date().toISOString();
    await repo.upsertIntegration(dbFor(this.env, userId), {
      id: randomId(),
      userId,
      provider,
      email: result.email,
      status: "active",
      secret: await sealTokens(this.config, userId, provider, result.tokens),
      expiresAt: result.expiresAt,
      scopes: result.scope,
      connectedAt: now,
      updatedAt: now,
    });
    return done("connected");
  }

  /** Revokes the grant at the provider (best effort), then deletes the integration and its secret. */
  async disconnect(userId: string, provider: OAuthProvider | "imap"): Promise<void> {
    const row = await repo.findIntegration(this.db, userId, provider);
    if (row && provider !== "imap") {
      const tokens = await unsealTokens(this.config, userId, provider, row.secret).catch(
        () => null,
      );
      let p: ProviderConfig | null = null;
      try {
        p = providerConfig(this.config, provider);
      } catch {
        // A provider no longer configured cannot be told; the local grant is still removed.
      }
      if (tokens && p) await revokeGrant(p, tokens);
    }
    await repo.deleteIntegration(this.db, userId, provider);
  }

  async refresh(userId: string, provider: OAuthProvider): Promise<{ expiresAt: string }> {
    providerConfig(this.config, provider);
    const r = await tokensFor(this.env, userId).token(provider, true);
    if (r.ok) return { expiresAt: new Date(r.expiresAt).toISOString() };
    if (r.reason === "not_connected") throw notFound("Integration");
    if (r.reason === "unavailable")
      throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, "Provider unavailable; try again later");
    throw new AppError(ErrorCode.UNPROCESSABLE, "The integration is disconnected; reconnect it");
  }

  /**
   * Checks the credentials by logging in, stores them sealed as a mailbox pending verification,
   * and mails the check message to the address (imap-proof.ts). The mailbox counts for resets and
   * discovery only once verifyImap has read that message back through it.
   */
  async connectImap(
    userId: string,
    creds: ImapCredentials,
  ): Promise<{ email: string; status: string }> {
    await guardImapTarget(this.config, creds.host, creds.port);
    const client = await openImap(this.config, creds);
    await client.logout();
    const email = (
      creds.username.includes("@") ? creds.username : `${creds.username}@${creds.host}`
    ).toLowerCase();
    const now = new Date().toISOString();
    const proof = newProof();
    await repo.upsertIntegration(this.db, {
      id: randomId(),
      userId,
      provider: "imap",
      email,
      status: PENDING_VERIFICATION,
      secret: await sealImap(this.config, userId, { ...creds, host: creds.host.trim(), proof }),
      expiresAt: null,
      scopes: null,
      connectedAt: now,
      updatedAt: now,
    });
    await this.mailer().send(proofMail(this.config, email, proof));
    return { email, status: PENDING_VERIFICATION };
  }

  /**
   * Reads the check message back through the mailbox; found, the mailbox becomes active. `resend`
   * mails a new check message (the old one no longer counts). Not found yet: 422; too old: 410.
   */
  async verifyImap(userId: string, resend: boolean): Promise<{ email: string; status: string }> {
    const row = await repo.findIntegration(this.db, userId, "imap");
    if (!row) throw notFound("IMAP integration");
    if (row.status !== PENDING_VERIFICATION) return { email: row.email, status: row.status };
    const sealed = await unsealImap(this.config, userId, row.secret);
    const { proof, ...creds } = sealed;
    const now = new Date().toISOString();
    if (resend || !proof) {
      const fresh = newProof();
      await repo.updateIntegration(this.db, userId, "imap", {
        secret: await sealImap(this.config, userId, { ...creds, proof: fresh }),
        updatedAt: now,
      });
      await this.mailer().send(proofMail(this.config, row.email, fresh));
      return { email: row.email, status: PENDING_VERIFICATION };
    }
    if (Date.now() - proof.sentAt > PROOF_TTL_MS)
      throw new AppError(ErrorCode.GONE, "The check message has expired; send a new one");
    const client = await openImap(this.config, creds);
    let found: boolean;
    try {
      found = await findProof(client, proof);
    } catch {
      throw new AppError(ErrorCode.UNPROCESSABLE, "Could not read the mailbox; try again");
    } finally {
      await client.logout();
    }
    if (!found)
      throw new AppError(
        ErrorCode.UNPROCESSABLE,
        "The check message has not arrived in this mailbox yet; try again once it has",
      );
    await repo.updateIntegration(this.db, userId, "imap", {
      status: "active",
      secret: await sealImap(this.config, userId, creds),
      updatedAt: now,
    });
    return { email: row.email, status: "active" };
  }

  private mailer() {
    return mailerFor(this.config, this.db, this.env.MAIL_QUEUE, directoryDb(this.env));
  }
}
