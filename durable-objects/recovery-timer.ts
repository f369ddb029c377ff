import { DurableObject } from "cloudflare:workers";
import { errorName, logJson, withLogContext } from "../src/lib/log";

/** `ownerId` names the vault owner whose database holds the contact (dbFor's user); older timers lack it. */
export type TimerTarget =
  | { kind: "dead_man_switch"; userId: string }
  | { kind: "emergency"; contactId: string; ownerId?: string };

/** What a tick does is the domain's: it returns when to wake next, or null when nothing is left to time. */
export type TimerTick<E> = (env: E, target: TimerTarget, now: number) => Promise<number | null>;

/** If a tick fails (D1 unavailable), try again after this long rather than losing the timer. */
const RETRY_MS = 5 * 60 * 1000;

/**
 * One object per timed record (a user's switch, an emergency contact). It only remembers what it
 * times and when to wake; on each alarm the tick the entry registered (src/index.ts) re-reads the
 * state from D1, does what is due and says when it next needs waking. Because every tick works from
 * stored timestamps, a late, early or repeated alarm is harmless.
 */
export abstract class RecoveryTimerBase<E = unknown> extends DurableObject<E> {
  protected abstract tick: TimerTick<E>;

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
      // An alarm has no request: the lines the tick writes (a mail that failed, say) name the timer.
      next = await withLogContext({ alarm: "recovery-timer", timer: target.kind }, () =>
        this.tick(this.env, target, now),
      );
    } catch (err) {
      logJson("error", "recovery timer tick failed", { timer: target.kind, error: errorName(err) });
      next = now + RETRY_MS;
    }
    if (next === null) await this.cancel();
    else await this.ctx.storage.setAlarm(Math.max(next, now + 1000));
  }
}

export type RecoveryTimerNamespace = DurableObjectNamespace<RecoveryTimerBase>;

export const timerName = {
  deadManSwitch: (userId: string) => `dms:${userId}`,
  emergency: (contactId: string) => `emergency:${contactId}`,
};

/** The typed client the services use. */
export function recoveryTimers(ns: RecoveryTimerNamespace) {
  const stub = (name: string) => ns.get(ns.idFromName(name));
  return {
    scheduleDeadManSwitch: (userId: string, at: number) =>
      stub(timerName.deadManSwitch(userId)).schedule({ kind: "dead_man_switch", userId }, at),
    cancelDeadManSwitch: (userId: string) => stub(timerName.deadManSwitch(userId)).cancel(),
    scheduleEmergency: (contactId: string, ownerId: string, at: number) =>
      stub(timerName.emergency(contactId)).schedule({ kind: "emergency", contactId, ownerId }, at),
    cancelEmergency: (contactId: string) => stub(timerName.emergency(contactId)).cancel(),
  };
}

export type RecoveryTimers = ReturnType<typeof recoveryTimers>;
