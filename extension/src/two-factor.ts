/**
 * Whether the web app's sign-in still owes its account 2FA code (DECISIONS D20), as the offscreen
 * vault knows it: set by any API call the server refuses with TWO_FACTOR_REQUIRED, cleared once the
 * popup's code is accepted, and asked of the server whenever the popup opens. While it is set
 * nothing fills, not even from the offline copy: the server would refuse this sign-in everything,
 * so the extension does too.
 */
import { ApiClient, ApiError, OfflineError, setChallengeHandler } from "../../core/api";

export const owesCode = (e: unknown) =>
  e instanceof ApiError && e.body.code === "TWO_FACTOR_REQUIRED";

export class TwoFactorGate {
  pending = false;

  /** `token`: the session the service worker last stamped a message with. */
  constructor(private readonly token: () => Promise<string | null>) {
    setChallengeHandler(async (err) => {
      if (err.body.code === "TWO_FACTOR_REQUIRED") this.pending = true;
      return false;
    });
  }

  /** Asks the server whether this sign-in still owes its code; offline, the last answer stands. */
  async check(appOrigin: string, current: string | null): Promise<boolean> {
    if (!current) return (this.pending = false);
    try {
      this.pending =
        (await new ApiClient(appOrigin, this.token).session()).twoFactorRequired === true;
    } catch (e) {
      if (!(e instanceof OfflineError) && !owesCode(e))
        console.warn(`session check failed: ${String(e)}`);
    }
    return this.pending;
  }

  /** The popup's code (TOTP or recovery code) for this sign-in, posted with the session and its CSRF token; `verified` runs once it is accepted. */
  async verify(
    appOrigin: string,
    code: string,
    verified: () => void,
  ): Promise<{ ok: boolean; error?: string }> {
    try {
      await new ApiClient(appOrigin, this.token).twoFactorVerify(code.trim());
    } catch (e) {
      if (e instanceof OfflineError)
        return { ok: false, error: "No connection to the web app: try again when online" };
      if (e instanceof ApiError)
        return {
          ok: false,
          error:
            e.status === 429
              ? "Too many wrong codes: wait a few minutes, then try again"
              : "That code was not accepted",
        };
      throw e;
    }
    this.pending = false;
    verified();
    return { ok: true };
  }
}
