import type { Context } from "hono";
import { entryIdClaims } from "../../db/entry-ids";
import type { AppEnv } from "../../http/types";
import { vaultLimits } from "../passwords";
import { vaultCtx } from "./context";

/** The per-request context every vault service is built on. */
export function ctxOf(c: Context<AppEnv>) {
  const config = c.get("config");
  return vaultCtx(c.env, entryIdClaims(c.env), {
    membersPerVault: config.MAX_VAULT_MEMBERS,
    vaultsPerUser: config.MAX_VAULTS_PER_USER,
    // A shared vault holds as much as one person's vault may.
    entries: vaultLimits(config),
    personal: vaultLimits(config),
  });
}
