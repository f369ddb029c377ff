/**
 * The resets of the signed-in user, followed while the app is open, whatever view is shown: an
 * entry's reset tool or the resets section may come and go, the task goes on and its password is
 * saved. Started at unlock (resumeResets), so tasks that ended while no tab was open are saved then.
 */
import { ApiError, OfflineError } from "../../../core/api";
import type { AppContext } from "../shell/context";
import { Resets, TERMINAL, type TaskStatus, type TrackedReset } from "./resets";

export type LiveReset = {
  task: TrackedReset;
  status: TaskStatus | null;
  /** Steps the run has reached, in order. */
  reached: string[];
  screenshot: string | null;
  saved: { entryId: string; entryName: string; uncertain: boolean } | null;
  /** The stream could not be read (offline, or it dropped); it is retried. */
  interrupted: boolean;
};

const RETRY_MS = 3_000;

export class ResetManager extends EventTarget {
  readonly resets: Resets;
  readonly live = new Map<string, LiveReset>();
  private stopped = false;

  constructor(private readonly app: AppContext) {
    super();
    this.resets = new Resets(app.db, app.api, app.vault, app.session.userId);
  }

  private changed(r: LiveReset) {
    this.dispatchEvent(new CustomEvent("change", { detail: r }));
  }

  /** The newest reset of an entry that this app knows of. */
  forEntry(entryId: string): LiveReset | undefined {
    return [...this.live.values()].filter((r) => r.task.entryId === entryId).at(-1);
  }

  async start(input: {
    entryId: string | null;
    serviceUrl: string;
    email: string;
  }): Promise<LiveReset> {
    return this.watch(await this.resets.start(input));
  }

  /** Follows a task until it ends; a dropped stream is reopened, offline it waits for the network. */
  watch(task: TrackedReset): LiveReset {
    const known = this.live.get(task.taskId);
    if (known) return known;
    const r: LiveReset = {
      task,
      status: null,
      reached: [],
      screenshot: null,
      saved: null,
      interrupted: false,
    };
    this.live.set(task.taskId, r);
    void this.run(r);
    return r;
  }

  private async run(r: LiveReset) {
    while (!this.stopped && !(r.status && TERMINAL.has(r.status.status))) {
      try {
        await this.resets.follow(r.task.taskId, (e) => {
          r.interrupted = false;
          if (e.kind === "screenshot") r.screenshot = e.url;
          else if (e.kind === "saved") {
            r.saved = e;
            this.app.toast(
              e.uncertain
                ? `The password being set is kept in the notes of ${e.entryName}`
                : `New password saved to ${e.entryName}`,
            );
            void this.app.changed();
          } else {
            r.status = e.status;
            if (e.status.step && !r.reached.includes(e.status.step)) r.reached.push(e.status.step);
          }
          this.changed(r);
        });
      } catch (e) {
        if (e instanceof ApiError && e.status === 404) {
          r.status = { status: "failed", error: "this task is no longer known to the server" };
          this.changed(r);
          return;
        }
        if (!(e instanceof OfflineError) && !(e instanceof ApiError)) {
          // Still tracked: the next unlock tries to open and save it again.
          r.status = {
            status: "failed",
            error: `the new password could not be saved here (${e instanceof Error ? e.message : String(e)})`,
          };
          this.changed(r);
          return;
        }
      }
      if (r.status && TERMINAL.has(r.status.status)) return;
      r.interrupted = true;
      this.changed(r);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, RETRY_MS);
        if (!navigator.onLine)
          addEventListener("online", () => (clearTimeout(t), resolve()), { once: true });
      });
    }
  }

  stop() {
    this.stopped = true;
  }
}

const managers = new WeakMap<object, ResetManager>();

/** One manager per open vault (keyed by its key object, which a lock and unlock replace). */
export function resetManager(app: AppContext): ResetManager {
  let m = managers.get(app.keys);
  if (!m) {
    m = new ResetManager(app);
    managers.set(app.keys, m);
  }
  return m;
}

/** At unlock: every reset this device started and has not saved is followed (and saved) again. */
export async function resumeResets(app: AppContext): Promise<void> {
  const m = resetManager(app);
  for (const t of await m.resets.tracked()) m.watch(t);
}
