import type { RecoveryTimers } from "../../../durable-objects/recovery-timer";
import type { Db } from "../../db/client";
import * as repo from "./repo";

/**
 * An emergency contact's timer is a Durable Object alarm, not a row: after a restore
 * (src/domains/backup) a pending request is armed again for its grant time and a granted access
 * for its expiry, as the request and the approval arm them. Returns how many were armed.
 */
export async function rearmEmergencyContacts(
  directory: Db,
  timers: RecoveryTimers,
  ids: readonly string[],
): Promise<number> {
  let armed = 0;
  for (const id of ids) {
    const row = await repo.findById(directory, id);
    const at =
      row?.status === "access_requested"
        ? row.grantAt
        : row?.status === "access_granted"
          ? row.expiresAt
          : null;
    if (!row || !at) continue;
    await timers.scheduleEmergency(row.id, row.ownerId, Date.parse(at));
    armed++;
  }
  return armed;
}
