/** Emergency access mails: each names what the person does and links to where they do it. */
import { countOf } from "../../kernel/plural";
import { actionMail, type Mail } from "../notifications";

export const inviteMail = (
  origin: string,
  to: string,
  owner: string | null,
  waitHours: number,
  ttlDays: number,
  expiresAt: string,
  token: string,
): Mail =>
  actionMail(origin, {
    to,
    kind: "emergency.invite",
    subject: "You have been named an emergency contact",
    body: `${owner ?? "A vault owner"} named you as an emergency contact for their vault, with a waiting period of ${countOf(waitHours, "hour")}.`,
    action: `To accept the invitation, open this link within ${countOf(ttlDays, "day")} (until ${expiresAt})`,
    path: `/emergency/${token}`,
  });

export const INVITED_TITLE = "You were named an emergency contact";
export const invitedBody = (owner: string | null, waitHours: number) =>
  `${owner ?? "A vault owner"} named you as an emergency contact for their vault, with a waiting period of ${countOf(waitHours, "hour")}. Accept the invitation on the Emergency access page.`;

export const REQUESTED_TITLE = "Emergency access requested";
export const requestedBody = (contact: string, grantAt: string) =>
  `${contact} requested emergency access to your vault. It will be granted automatically at ${grantAt} unless you deny it.`;

export const requestedMail = (origin: string, to: string, contact: string, grantAt: string): Mail =>
  actionMail(origin, {
    to,
    kind: "emergency.requested",
    subject: REQUESTED_TITLE,
    body: requestedBody(contact, grantAt),
    action: `To deny it, open Emergency access and choose Deny before ${grantAt}; to let it through now, choose Approve`,
    path: "/emergency",
  });

/** `how`: why access was granted (the owner approved, or the waiting period passed). */
export const grantedMail = (origin: string, to: string, how: string, expiresAt: string): Mail =>
  actionMail(origin, {
    to,
    kind: "emergency.granted",
    subject: "Emergency access granted",
    body: `Your emergency access request was granted because ${how}.`,
    action: `To retrieve access, sign in and open Emergency access before ${expiresAt}`,
    path: "/emergency",
  });
