/** The dead man's switch's mails: each names what the person does and links to where they do it. */
import { countOf } from "../../kernel/plural";
import { actionMail, type Mail } from "../notifications";

const PAGE = "/dead-man-switch";
const CHECK_IN = "open your dead man's switch and choose Check in";

export const REMINDER_TITLE = "Dead man's switch: check in";
export const reminderBody = (days: number, nextTriggerAt: string) =>
  `Your dead man's switch triggers in ${countOf(days, "day")} (${nextTriggerAt}). Check in to reset it.`;

export const reminderMail = (
  origin: string,
  to: string,
  days: number,
  nextTriggerAt: string,
): Mail =>
  actionMail(origin, {
    to,
    kind: "dead_man_switch.reminder",
    subject: REMINDER_TITLE,
    body: reminderBody(days, nextTriggerAt),
    action: `To reset it, ${CHECK_IN}`,
    path: PAGE,
  });

export const TRIGGERED_TITLE = "Dead man's switch triggered";
/** `releaseAt` is set while the release waits for the owner's last chance (confirmation required). */
export const triggeredBody = (releaseAt: string | null) =>
  releaseAt
    ? `Your inactivity period has run out. Your recovery keys will be released to your recipients at ${releaseAt} unless you check in before then.`
    : "Your inactivity period has run out and your recipients can now retrieve their recovery keys. Check in to stop further access.";

export const triggeredMail = (origin: string, to: string, releaseAt: string | null): Mail =>
  actionMail(origin, {
    to,
    kind: "dead_man_switch.triggered",
    subject: TRIGGERED_TITLE,
    body: triggeredBody(releaseAt),
    action: releaseAt
      ? `To stop the release, ${CHECK_IN} before ${releaseAt}`
      : `To stop further access, ${CHECK_IN}`,
    path: PAGE,
  });

export const releasedMail = (origin: string, to: string): Mail =>
  actionMail(origin, {
    to,
    kind: "dead_man_switch.released",
    subject: "A recovery key has been released to you",
    body: "A vault owner named you as a recipient of their dead man's switch, and it has triggered.",
    action: "To retrieve your recovery key, sign in and open the released keys",
    path: `${PAGE}/transfers`,
  });
