import { env } from "cloudflare:test";
import { TestUser } from "./auth";
import { base32Decode, referenceTotp } from "./rfc6238";

export type Enrollment = { qrCodeUri: string; secret: string; recoveryCodes: string[] };

export async function enroll(
  user: TestUser,
  headers: Record<string, string> = {},
): Promise<Enrollment> {
  const res = await user.call("POST", "/api/2fa/enroll", { headers });
  if (res.status !== 200) throw new Error(`enroll failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as Enrollment;
}

/** The code an authenticator app shows now (or `steps` periods away), computed independently. */
export function codeFor(secret: string, steps = 0): Promise<string> {
  return referenceTotp(base32Decode(secret), Date.now() / 1000 + steps * 30);
}

/** Enrolls and confirms with the current code, as a user finishing setup would. */
export async function enrollAndConfirm(user: TestUser): Promise<Enrollment> {
  const e = await enroll(user);
  const res = await user.call("POST", "/api/2fa/verify", {
    body: { code: await codeFor(e.secret) },
  });
  if (res.status !== 200) throw new Error(`confirm failed: ${res.status} ${await res.text()}`);
  return e;
}

export type TwoFactorDbRow = {
  secret_sealed: string;
  enrolled_at: string | null;
  last_used_step: number | null;
  failed_count: number;
  failed_window_start: number;
};

export async function twoFactorRow(userId: string): Promise<TwoFactorDbRow | null> {
  return env.DB.prepare("SELECT * FROM two_factor WHERE user_id = ?")
    .bind(userId)
    .first<TwoFactorDbRow>();
}

/** Puts the wrong-code window in a given state, as if earlier requests had left it so. */
export async function setWrongCodes(
  userId: string,
  count: number,
  windowStartMs: number,
): Promise<void> {
  await env.DB.prepare(
    "UPDATE two_factor SET failed_count = ?, failed_window_start = ? WHERE user_id = ?",
  )
    .bind(count, windowStartMs, userId)
    .run();
}

/** Moves the codes accepted for the user's sign-ins `seconds` into the past (D20: those a sign-in was asked for count as sign-ins for step-up). */
export async function ageSecondFactor(userId: string, seconds: number): Promise<void> {
  await env.DB.prepare(
    "UPDATE two_factor_sign_ins SET verified_at = verified_at - ?1, fresh_at = fresh_at - ?1 WHERE user_id = ?2",
  )
    .bind(seconds, userId)
    .run();
}

/**
 * The account's owner enrols from a recent sign-in (D20: a first enrollment needs one); the returned
 * user is another sign-in of the same account, `authAge` seconds old, that has passed its code.
 */
export async function enrolledSignIn(
  authAge: number,
): Promise<{ user: TestUser; enrollment: Enrollment }> {
  const owner = await TestUser.create({ authAge: 0 });
  const enrollment = await enrollAndConfirm(owner);
  const user = await owner.withToken({ authAge });
  const res = await user.call("POST", "/api/2fa/verify", {
    body: { code: await codeFor(enrollment.secret, 1) },
  });
  if (res.status !== 200) throw new Error(`verify failed: ${res.status} ${await res.text()}`);
  return { user, enrollment };
}
