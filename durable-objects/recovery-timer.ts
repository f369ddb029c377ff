import { DurableObject } from "cloudflare:workers";
import type { Bindings } from "../src/env";
import { runDeadManSwitchTimer } from "../src/domains/dead-man-switch/timer";
import { runEmergencyTimer } from "../src/domains/emergency/timer";

export type TimerTarget = { kind: "dead_man_switch"; userId: string } | { kind: "emergency"; contactId: string };

/** If a tick fails (D1 unavailable), try again after this long rather than losing the timer. */
const RETRY_MS = 5 * 60 * 1000;

/**
 * One object per timed record (a user's switch, an emergency contact). It only remembers what it
 * times and when to wake; on each alarm the domain re-reads its state from D1, does what is due and
 * says when it next needs waking. Because every tick works from stored timestamps, a late, early or
 * repeated alarm is harmless.
 */
export class RecoveryTimer extends DurableObject<Bindings> {
  async schedule(target: TimerTarget, at: number): Promise<void> {
    await this.ctx.storage.put("target", target);
    await this.ctx.storage.setAlarm(at);
  }

  async cancel(): Promise<void> {
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
  }

  async scheduledAt(): Promise<number | null> {
    return this.ctx.storage.getAlarm();
  }

  async alarm(): Promise<void> {
    const target = await this.ctx.storage.get<TimerTarget>("target");
    if (!target) return;
    const now = Date.now();
    let next: number | null;
    try {
      next = target.kind === "dead_man_switch" ? await runDeadManSwitchTimer(this.env, target.userId, now) : await runEmergencyTimer(this.env, target.contactId, now);
    } catch (err) {
      console.error("recovery timer tick failed", target.kind, err instanceof Error ? err.message : "unknown error");
      next = now + RETRY_MS;
    }
    if (next === null) await this.cancel();
    else await this.ctx.storage.setAlarm(Math.max(next, now + 1000));
  }
}

function stubFor(env: Bindings, name: string) {
  return env.RECOVERY_TIMER.get(env.RECOVERY_TIMER.idFromName(name));
}

export const timerName = {
  deadManSwitch: (userId: string) => `dms:${userId}`,
  emergency: (contactId: string) => `emergency:${contactId}`,
};

/** The typed client the services use. */
export function recoveryTimers(env: Bindings) {
  return {
    scheduleDeadManSwitch: (userId: string, at: number) => stubFor(env, timerName.deadManSwitch(userId)).schedule({ kind: "dead_man_switch", userId }, at),
    cancelDeadManSwitch: (userId: string) => stubFor(env, timerName.deadManSwitch(userId)).cancel(),
    scheduleEmergency: (contactId: string, at: number) => stubFor(env, timerName.emergency(contactId)).schedule({ kind: "emergency", contactId }, at),
    cancelEmergency: (contactId: string) => stubFor(env, timerName.emergency(contactId)).cancel(),
  };
}

export type RecoveryTimers = ReturnType<typeof recoveryTimers>;
