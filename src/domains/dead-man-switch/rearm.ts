import type { RecoveryTimers } from "../../../durable-objects/recovery-timer";
import type { Db } from "../../db/client";
import { nextWake } from "./engine";
import * as repo from "./repo";

/**
 * A switch's timer is a Durable Object alarm, not a row: a restore (src/domains/backup) brings the
 * rows back and then arms each restored switch's timer from its row, as saving the switch would.
 * Returns how many were armed (a disabled or finished switch has nothing to time).
 */
export async function rearmDeadManSwitches(
  directory: Db,
  timers: RecoveryTimers,
  userIds: readonly string[],
): Promise<number> {
  let armed = 0;
  for (const userId of userIds) {
    const row = await repo.findSwitch(directory, userId);
    const wake = row ? nextWake(row) : null;
    if (wake === null) continue;
    await timers.scheduleDeadManSwitch(userId, wake);
    armed++;
  }
  return armed;
}
