import type { DeadManSwitchRow, SwitchStatus } from "../../db/schema";

export const DAY_MS = 24 * 60 * 60 * 1000;
/** With confirmation_required, how long held transfers wait for the owner before release. */
export const CONFIRMATION_WINDOW_MS = 48 * 60 * 60 * 1000;

export const ms = (iso: string) => Date.parse(iso);
export const iso = (t: number) => new Date(t).toISOString();

export function triggerAt(lastCheckIn: number, inactivityDays: number): number {
  return lastCheckIn + inactivityDays * DAY_MS;
}

/** Whole days left, rounded up, so "3" means the trigger falls within the next three days. */
export function daysRemaining(nextTriggerAt: number, now: number): number {
  return Math.max(0, Math.ceil((nextTriggerAt - now) / DAY_MS));
}

/** DECISIONS D7, evaluated at `now` so a read is right even if the timer has not fired yet. */
export function statusAt(row: DeadManSwitchRow, now: number): SwitchStatus {
  if (!row.enabled) return "disabled";
  if (row.status === "triggered" || !row.nextTriggerAt)
    return row.status === "triggered" ? "triggered" : "idle";
  const next = ms(row.nextTriggerAt);
  if (now >= next) return "triggered";
  const largest = Math.max(0, ...row.notifyAtDays);
  return next - now <= largest * DAY_MS ? "warning" : "idle";
}

/** Reminder days whose moment has come and that were not yet sent in this period. */
export function dueReminders(row: DeadManSwitchRow, now: number): number[] {
  if (!row.nextTriggerAt) return [];
  const next = ms(row.nextTriggerAt);
  return row.notifyAtDays.filter((d) => !row.remindersSent.includes(d) && now >= next - d * DAY_MS);
}

/** When the timer must next wake: the next unsent reminder, else the trigger itself. */
export function nextWake(row: DeadManSwitchRow): number | null {
  if (!row.enabled) return null;
  if (row.status === "triggered") return row.releaseAt ? ms(row.releaseAt) : null;
  if (!row.nextTriggerAt) return null;
  const next = ms(row.nextTriggerAt);
  const pending = row.notifyAtDays
    .filter((d) => !row.remindersSent.includes(d))
    .map((d) => next - d * DAY_MS);
  return Math.min(next, ...pending);
}

/** The fields a check-in (manual, by sign-in, or by saving the switch) resets. */
export function checkInFields(inactivityDays: number, now: number) {
  return {
    lastCheckIn: iso(now),
    nextTriggerAt: iso(triggerAt(now, inactivityDays)),
    status: "idle" as const,
    remindersSent: [] as number[],
    triggeredAt: null,
    releaseAt: null,
    updatedAt: iso(now),
  };
}
