/**
 * Machine tokens (docs/cli.md, "Tokens for machines and agents"): `vault token create|list|revoke|
 * reads` for the person, and the token's own reads: with VAULT_TOKEN set, `get`, `run` and `inject`
 * read the token's shared vault with no sign-in and no agent, open it here with the key material
 * the token carries, and the server logs each read with the token's name and the reason given.
 */
import { ApiError } from "../core/api";
import { DecryptionError } from "../core/crypto";
import {
  openVaultEntry,
  readWithToken,
  TokenFormatError,
  tokensApi,
  type TokenView,
} from "../core/vaults";
import { ask } from "./agent-client";
import { apiFor } from "./device";
import { CliError, EXIT, usage } from "./errors";
import { parseReference } from "./references";
import { loadSignIn, requireSignIn } from "./state";
import { fieldValue } from "./vault-view";

type Opts = Record<string, string | boolean | undefined>;
const str = (v: Opts[string]) => (typeof v === "string" ? v : undefined);

/** `30d`, `12h`, `90m`: at most 366 days, the server's own limit. */
export function expiryOf(text: string | undefined): Date {
  const m = /^(\d{1,4})([mhd])$/.exec(text ?? "30d");
  const unit = { m: 60_000, h: 3_600_000, d: 86_400_000 };
  const ms = m ? Number(m[1]) * unit[m[2] as keyof typeof unit] : Number.NaN;
  if (!(ms >= 5 * 60_000 && ms <= 366 * 86_400_000))
    throw usage("--expires takes a time from 5m to 366d (e.g. 90m, 12h, 30d)");
  return new Date(Date.now() + ms);
}

export async function createToken(args: string[], o: Opts) {
  const vault = str(o.vault);
  const name = str(o.name);
  if (args.length || !vault || !name)
    throw usage("Usage: vault token create --vault <vault> --name <name> [--expires 30d]");
  const expires = expiryOf(str(o.expires));
  const r = await ask({ op: "tokenCreate", vault, name, expiresAt: expires.toISOString() });
  return r as unknown as {
    token: string;
    id: string;
    name: string;
    vault: string;
    expires_at: string;
  };
}

export async function listTokens() {
  return tokensApi(await apiFor(requireSignIn().server)).list();
}

export async function revokeToken(id: string) {
  if (!/^[0-9a-f-]{36}$/.test(id)) throw usage("vault token revoke takes a token's id");
  try {
    return await tokensApi(await apiFor(requireSignIn().server)).revoke(id);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404)
      throw new CliError(`No token ${id} of yours`, EXIT.NOT_FOUND);
    throw e;
  }
}

export async function tokenReads(o: Opts) {
  const id = str(o.id);
  if (id !== undefined && !/^[0-9a-f-]{36}$/.test(id)) throw usage("--id takes a token's id");
  return tokensApi(await apiFor(requireSignIn().server)).reads(id, 100);
}

/** The token of this process's environment, or null: then the agent answers as before. */
export const machineToken = () => process.env.VAULT_TOKEN || null;

/**
 * What a token reads, once per command: the server logs this one read with `reason`. A refused
 * token (revoked, expired, its maker gone, the vault's key changed) ends the command with exit 3.
 */
export async function readToken(token: string, reason: string | null): Promise<TokenReader> {
  const server = process.env.VAULT_SERVER ?? loadSignIn()?.server;
  if (!server) throw usage("VAULT_TOKEN needs VAULT_SERVER, the vault's address");
  try {
    return new TokenReader(await readWithToken(server, token, reason));
  } catch (e) {
    if (e instanceof TokenFormatError) throw usage(`VAULT_TOKEN: ${e.message}`);
    if (e instanceof DecryptionError) throw new CliError(e.message, EXIT.FAILED);
    if (e instanceof ApiError && (e.status === 401 || e.status === 403))
      throw new CliError(`The server refused the token: ${e.body.error}`, EXIT.SIGNED_OUT);
    if (e instanceof ApiError)
      throw new CliError(`The server refused: ${e.body.error}`, EXIT.SERVER);
    // fetch's own failure: no answer at all.
    if (e instanceof TypeError) throw new CliError("The server could not be reached", EXIT.SERVER);
    throw e;
  }
}

export class TokenReader {
  constructor(readonly view: TokenView) {}

  private find(nameOrId: string) {
    const rows = this.view.entries;
    const byId = rows.find((e) => e.id === nameOrId);
    if (byId) return byId;
    const wanted = nameOrId.trim().toLowerCase();
    const named = rows.filter((e) => e.name.trim().toLowerCase() === wanted);
    if (named.length === 1) return named[0]!;
    if (named.length > 1)
      throw new CliError(
        `${named.length} entries are named "${nameOrId}": name one by its id (${named.map((e) => e.id).join(", ")})`,
        EXIT.NOT_FOUND,
      );
    throw new CliError(`No entry named "${nameOrId}" in ${this.view.vaultName}`, EXIT.NOT_FOUND);
  }

  async field(nameOrId: string, field: string): Promise<string> {
    const e = this.find(nameOrId);
    if (!e.wrapped_item_key || !e.encrypted_data)
      throw new CliError(`"${e.name}" holds no sealed secrets`, EXIT.NOT_FOUND);
    let secrets;
    try {
      secrets = await openVaultEntry(this.view.keys, this.view.vaultId, {
        ...e,
        wrapped_item_key: e.wrapped_item_key,
        encrypted_data: e.encrypted_data,
      });
    } catch (err) {
      if (err instanceof DecryptionError)
        throw new CliError(`"${e.name}" does not open: ${err.message}`, EXIT.FAILED);
      throw err;
    }
    const value = await fieldValue(e, secrets, field);
    if (value === null) throw new CliError(`"${e.name}" has no ${field}`, EXIT.NOT_FOUND);
    return value;
  }

  /** Every reference or none; each must name the token's vault, by its name or its id. */
  async resolve(refs: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const v = this.view;
    for (const text of refs) {
      const ref = parseReference(text);
      const named =
        ref.vault === v.vaultId ||
        ref.vault.trim().toLowerCase() === v.vaultName.trim().toLowerCase();
      if (!named)
        throw new CliError(
          `${text}: this token opens the vault "${v.vaultName}" only`,
          EXIT.NOT_FOUND,
        );
      try {
        out.set(text, await this.field(ref.entry, ref.field));
      } catch (e) {
        if (e instanceof CliError) throw new CliError(`${text}: ${e.message}`, e.exitCode);
        throw e;
      }
    }
    return out;
  }
}
