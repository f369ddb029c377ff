/**
 * Making a machine token, in the agent (docs/cli.md, "Tokens for machines and agents"): apart from
 * cli/tokens.ts, which asks the agent, so the agent does not import its own client.
 */
import { ApiError, sharingApi } from "../core/api";
import { unwrapSharingPrivateKey, type VaultKeys } from "../core/crypto";
import { makeVaultToken, openVault, vaultsApi, type OpenedVault } from "../core/vaults";
import { apiFor } from "./device";
import { CliError, EXIT } from "./errors";
import { freshSignIn } from "./oidc";

/**
 * In the agent, which holds the vault key: the account's sharing private key (kept on the server
 * wrapped by the vault key) opens the person's copy of the shared vault's key, and a token is made
 * for that vault. Only the token string leaves the agent, once.
 */
export async function makeTokenInAgent(
  keys: VaultKeys,
  userId: string,
  req: { vault: string; name: string; expiresAt: string },
) {
  const api = await apiFor((await freshSignIn()).server);
  let wrappedPrivate: string | null | undefined;
  try {
    wrappedPrivate = (await sharingApi(api).ownKey()).wrappedPrivateKey;
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 404)) throw e;
  }
  if (!wrappedPrivate)
    throw new CliError(
      "This account has no sharing key to open shared vaults with: open the web app once",
      EXIT.FAILED,
    );
  const privateKey = await unwrapSharingPrivateKey(keys, wrappedPrivate);
  const vapi = vaultsApi(api);
  const wanted = req.vault.trim().toLowerCase();
  let found: OpenedVault | null = null;
  for (const v of (await vapi.list()).vaults) {
    if (v.member_state !== "wrapped") continue;
    const opened = await openVault(vapi, { userId, privateKey }, v).catch(() => null);
    if (opened && (v.id === req.vault || opened.name.trim().toLowerCase() === wanted)) {
      found = opened;
      break;
    }
  }
  if (!found)
    throw new CliError(`No shared vault named "${req.vault}" that you can open`, EXIT.NOT_FOUND);
  const made = await makeVaultToken(api, found, req.name, new Date(req.expiresAt));
  return {
    token: made.text,
    id: made.token.id,
    name: made.token.name,
    vault: found.name,
    vault_id: found.vault.id,
    expires_at: made.token.expires_at,
  };
}
