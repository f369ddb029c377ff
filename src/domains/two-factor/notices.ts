import type { Db } from "../../db/client";
import type { Config } from "../../env";
import { errorName, logJson } from "../../lib/log";
import { actionMail, notify, sendQuietly, type Mailer } from "../notifications";

/**
 * What happened to the account's second factor. Each is what a thief holding a session would do
 * to keep the account or lock its owner out, so the owner hears of every one on every channel the
 * account has: a notification in the app (and Web Push where subscribed) and a mail (D20).
 */
export type TwoFactorChange = "enabled" | "replaced" | "disabled";

const TEXT: Record<TwoFactorChange, { title: string; body: string }> = {
  enabled: {
    title: "Two-factor authentication turned on",
    body: "Every new sign-in to your vault now asks for a code from your authenticator app. If this was not you, sign in, turn it off with a recovery code you hold, sign out everywhere and change your passphrase.",
  },
  replaced: {
    title: "Two-factor authentication replaced",
    body: "A new authenticator was set up for your vault: the codes and recovery codes you had before no longer work. If this was not you, sign out everywhere and contact your vault's operator at once.",
  },
  disabled: {
    title: "Two-factor authentication turned off",
    body: "Sign-ins to your vault no longer ask for a code. If this was not you, sign out everywhere, turn two-factor authentication back on and change your passphrase.",
  },
};

export type NoticeContext = { db: Db; config: Config; mailer: Mailer; email: string | null };

/** The change is already committed: a notice that cannot be written or sent is logged, never undoes it. */
export async function tellOwner(
  ctx: NoticeContext,
  userId: string,
  change: TwoFactorChange,
): Promise<void> {
  const { title, body } = TEXT[change];
  try {
    await notify(
      ctx.db,
      {
        userId,
        type: `two_factor_${change}`,
        title,
        body,
        color: change === "enabled" ? "info" : "warning",
        icon: "shield",
        actionUrl: "/security",
      },
      ctx.config,
    );
  } catch (err) {
    logJson("error", "two-factor: notification not written", { error: errorName(err), change });
  }
  if (ctx.email) {
    await sendQuietly(
      ctx.mailer,
      actionMail(ctx.config.APP_ORIGIN ?? "", {
        to: ctx.email,
        kind: `two_factor.${change}`,
        subject: title,
        body,
        action: "To review your account's security",
        path: "/security",
      }),
    );
  }
}
