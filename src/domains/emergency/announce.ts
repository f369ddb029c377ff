import type { EmergencyContactRow } from "../../db/schema";
import { errorName, logJson } from "../../lib/log";
import { notify } from "../notifications";
import { accountOfAddress } from "../sharing";
import { INVITED_TITLE, invitedBody } from "./mails";
import type { EmergencyCtx } from "./timer";

/**
 * The invitee, when an account already reads this address (the one holding its sharing key, the
 * key the owner's browser just wrapped for), hears of the invitation in the app as well as by
 * mail: a notification whose action opens Emergency access on the invitation, where Accept is
 * (D21), pushed where they subscribed, and their open page refreshes. The invitation is committed
 * already: a notice that fails is logged, never undoes it.
 */
export async function announceInvitation(
  ctx: EmergencyCtx,
  row: EmergencyContactRow,
  ownerId: string,
): Promise<void> {
  try {
    const invitee = await accountOfAddress(ctx.directory, row.contactEmail);
    if (!invitee || invitee === ownerId) return;
    ctx.tell({ ...row, contactUserId: invitee });
    await notify(
      ctx.dbOf(invitee),
      {
        userId: invitee,
        type: "emergency_contact_invited",
        title: INVITED_TITLE,
        body: invitedBody(row.ownerEmail, row.waitHours),
        color: "info",
        icon: "shield",
        actionUrl: `/emergency?invitation=${row.id}`,
        actorId: ownerId,
        actorEmail: row.ownerEmail,
        metadata: { contact_id: row.id },
      },
      ctx.config,
    );
  } catch (err) {
    logJson("error", "emergency: invitation notice not written", { error: errorName(err) });
  }
}
