/** The current code of an entry's TOTP field: a base32 secret or an otpauth:// URI (Key Uri Format). */
import { normalizeAlgorithm, TOTP_DEFAULTS, totpCode } from "../../src/lib/totp";

export async function currentCode(field: string, nowMs = Date.now()): Promise<string | null> {
  const s = field.trim();
  let params = { secret: s.replace(/\s+/g, "").toUpperCase(), ...TOTP_DEFAULTS } as Parameters<
    typeof totpCode
  >[0];
  if (/^otpauth:\/\//i.test(s)) {
    const q = new URL(s).searchParams;
    const algorithm = normalizeAlgorithm(q.get("algorithm") ?? TOTP_DEFAULTS.algorithm);
    if (!algorithm || !q.get("secret")) return null;
    params = {
      secret: q.get("secret")!.toUpperCase(),
      algorithm,
      digits: Number(q.get("digits") ?? TOTP_DEFAULTS.digits),
      period: Number(q.get("period") ?? TOTP_DEFAULTS.period),
    };
  }
  try {
    return await totpCode(params, nowMs / 1000);
  } catch {
    return null;
  }
}
