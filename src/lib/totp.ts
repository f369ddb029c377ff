import {
  createGuardrails,
  generate,
  generateSecret,
  generateURI,
  verify,
  type HashAlgorithm,
} from "otplib";

/**
 * The one TOTP implementation (RFC 6238 over RFC 4226) behind account 2FA and legacy vault-entry
 * codes, so the RFC 6238 appendix B vectors exercise exactly what the endpoints run.
 */
export type TotpParams = {
  /** Base32 (RFC 4648) string, or the raw key bytes. */
  secret: string | Uint8Array;
  algorithm: HashAlgorithm;
  digits: number;
  period: number;
};

/**
 * RFC 4226 section 4 asks for at least 128-bit keys, but many services issued 80-bit ones that users
 * bring in as legacy entry secrets, so the floor is 80 bits here; our own 2FA secrets are 160 bits.
 */
const guardrails = createGuardrails({ MIN_SECRET_BYTES: 10 });

export const TOTP_DEFAULTS = { algorithm: "sha1", digits: 6, period: 30 } as const;

/** Maps the spellings clients use ("SHA-1", "sha256", "SHA_512") to otplib's names; null if unknown. */
export function normalizeAlgorithm(name: string): HashAlgorithm | null {
  const key = name.toLowerCase().replace(/[-_]/g, "");
  return key === "sha1" || key === "sha256" || key === "sha512" ? key : null;
}

export function timeStep(epochSeconds: number, period: number): number {
  return Math.floor(epochSeconds / period);
}

/** Whole seconds until the current code expires (1 to period). */
export function remainingSeconds(epochSeconds: number, period: number): number {
  return period - (Math.floor(epochSeconds) % period);
}

export function totpCode(p: TotpParams, epochSeconds: number): Promise<string> {
  return generate({ ...p, epoch: Math.floor(epochSeconds), guardrails });
}

export type TotpCheck = { valid: true; timeStep: number } | { valid: false };

/**
 * Checks a code against the current step and one step either side (RFC 6238 section 5.2 allows a
 * small window for clock drift and transmission delay). The caller rejects replays by comparing the
 * returned step with the last one it accepted.
 */
export async function checkTotp(
  p: TotpParams,
  token: string,
  epochSeconds: number,
  windowSteps = 1,
): Promise<TotpCheck> {
  if (token.length !== p.digits || !/^\d+$/.test(token)) return { valid: false };
  const result = await verify({
    ...p,
    token,
    epoch: Math.floor(epochSeconds),
    epochTolerance: windowSteps * p.period,
    guardrails,
  });
  return result.valid && "timeStep" in result
    ? { valid: true, timeStep: result.timeStep }
    : { valid: false };
}

export function newTotpSecret(): string {
  return generateSecret({ length: 20 });
}

export function otpauthUri(issuer: string, label: string, secret: string): string {
  return generateURI({
    issuer,
    label,
    secret,
    algorithm: TOTP_DEFAULTS.algorithm,
    digits: TOTP_DEFAULTS.digits,
    period: TOTP_DEFAULTS.period,
  });
}
