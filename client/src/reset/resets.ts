/**
 * Password resets from this device, end to end: start a task with the device's public key, follow
 * its stream, and on completion open the sealed password and save it into the entry as a sync
 * update (so it works offline and reaches other devices). Every task started here is remembered in
 * the local store until its result is saved; the manager (manager.ts) follows them again at every
 * unlock and finishes the ones that ended while no tab was open, so a new password is never lost.
 */
import type { ApiClient } from "../../../core/api";
import { hostnameOf } from "../../../src/kernel/hostname";
import { domainOf } from "../../../core/crypto";
import { AUTOMATION_ENDPOINTS as EP, STREAM_ENDPOINTS } from "../automation/endpoints";
import { frames } from "../automation/sse";
import type { LocalDb } from "../../../core/store";
import type { Vault } from "../../../core/vault";
import { deviceKey, openSealed } from "./device-key";

export type TrackedReset = {
  taskId: string;
  entryId: string | null;
  service: string;
  serviceUrl: string;
  email: string;
  startedAt: string;
};
export type TaskStatus = { status: string; step?: string; error?: string; newPassword?: string };
export type TaskEvent =
  | { kind: "status"; status: TaskStatus }
  | { kind: "screenshot"; url: string }
  | { kind: "saved"; entryId: string; entryName: string; uncertain: boolean };

export const TERMINAL = new Set(["completed", "failed", "cancelled"]);
export const STEP_LABELS: Record<string, string> = {
  navigate: "Open the reset page",
  enter_email: "Ask for a reset email",
  wait_for_email: "Wait for the email or code",
  follow_link: "Follow the reset link",
  set_password: "Set the new password",
};

const trackKey = (userId: string) => `resets:${userId}`;

export class Resets {
  constructor(
    private readonly db: LocalDb,
    private readonly api: ApiClient,
    private readonly vault: Vault,
    private readonly userId: string,
  ) {}

  async tracked(): Promise<TrackedReset[]> {
    return (await this.db.meta<TrackedReset[]>(trackKey(this.userId))) ?? [];
  }

  private async edit(fn: (list: TrackedReset[]) => TrackedReset[]): Promise<void> {
    await navigator.locks.request(`resets:${this.userId}`, async () =>
      this.db.setMeta(trackKey(this.userId), fn(await this.tracked())),
    );
  }

  private track(t: TrackedReset) {
    return this.edit((list) => [...list.filter((x) => x.taskId !== t.taskId), t]);
  }

  private untrack(taskId: string) {
    return this.edit((list) => list.filter((x) => x.taskId !== taskId));
  }

  /** Starts a reset for an entry; the task is remembered before anything can be lost. */
  async start(input: {
    entryId: string | null;
    serviceUrl: string;
    email: string;
  }): Promise<TrackedReset> {
    const key = await deviceKey(this.db, this.userId);
    const body = {
      serviceUrl: input.serviceUrl,
      email: input.email,
      clientPublicKey: key.publicJwk,
      ...(input.entryId ? { passwordId: input.entryId } : {}),
    };
    const { taskId } = await this.api.request(EP.createReset, { body });
    const t: TrackedReset = {
      taskId,
      entryId: input.entryId,
      service: hostnameOf(input.serviceUrl) ?? input.serviceUrl,
      serviceUrl: input.serviceUrl,
      email: input.email,
      startedAt: new Date().toISOString(),
    };
    await this.track(t);
    return t;
  }

  /**
   * A chat message ("reset my GitHub password"): the server resolves the service and starts the
   * task; the markdown lines go to `onLine` and the task is tracked as soon as its id is shown.
   */
  async chat(
    message: string,
    onLine: (section: string, line: string) => void,
    onTask: (t: TrackedReset) => void,
  ): Promise<void> {
    const key = await deviceKey(this.db, this.userId);
    const body = await this.api.stream(STREAM_ENDPOINTS.chatReset, {
      body: { message, clientPublicKey: key.publicJwk },
    });
    let section = "";
    const header: Record<string, string> = {};
    for await (const f of frames(body)) {
      if (f.event === "section") {
        section = f.data;
        continue;
      }
      onLine(section, f.data);
      const field =
        section === "header" ? /^- (Service|Account|Task): `([^`]+)`/.exec(f.data) : null;
      if (!field) continue;
      header[field[1]] = field[2];
      if (field[1] !== "Task") continue;
      const job = await this.api.request(EP.job, {
        params: { id: field[2] },
      });
      const service = header.Service ?? job.service;
      const t: TrackedReset = {
        taskId: field[2],
        entryId: job.passwordId ?? (await this.entryFor(service)),
        service,
        serviceUrl: `https://${service}`,
        email: header.Account ?? "",
        startedAt: new Date().toISOString(),
      };
      await this.track(t);
      onTask(t);
    }
  }

  /** The vault entry of a service the chat named (by its site's domain), so the password goes there. */
  private async entryFor(service: string): Promise<string | null> {
    const host = domainOf(service);
    return (
      (await this.vault.list()).find((e) => domainOf(e.url || e.website || "") === host)?.id ?? null
    );
  }

  cancel(taskId: string) {
    return this.api.request(EP.cancelTask, { params: { id: taskId } });
  }

  otp(taskId: string, code: string) {
    return this.api.request(EP.taskOtp, {
      params: { id: taskId },
      body: { code },
    });
  }

  /**
   * Follows a task to its end (the server replays the latest status first). A completed task's
   * password is saved before the task is forgotten; a stream cut short leaves it tracked, so the
   * next unlock picks it up again.
   */
  async follow(
    taskId: string,
    onEvent: (e: TaskEvent) => void,
    signal?: AbortSignal,
  ): Promise<TaskStatus | null> {
    const body = await this.api.stream(STREAM_ENDPOINTS.taskStream, {
      params: { id: taskId },
      signal,
    });
    for await (const f of frames(body)) {
      if (f.event === "screenshot") {
        onEvent({ kind: "screenshot", url: (JSON.parse(f.data) as { url: string }).url });
        continue;
      }
      if (f.event !== "status") continue;
      const status = JSON.parse(f.data) as TaskStatus;
      if ((status.status === "completed" || status.status === "failed") && status.newPassword) {
        const saved = await this.settle(taskId, status.newPassword, status.status === "failed");
        if (saved) onEvent({ kind: "saved", ...saved });
      } else if (TERMINAL.has(status.status)) await this.untrack(taskId);
      onEvent({ kind: "status", status: { ...status, newPassword: undefined } });
      if (TERMINAL.has(status.status)) return status;
    }
    return null;
  }

  /**
   * Opens the sealed password and saves it into the entry (or a new entry when it is gone), once:
   * under a lock, and only while the task is still tracked. `uncertain`: the reset failed after the
   * site was given the password, so it may or may not be in effect; the entry keeps its password
   * and the new one goes into its notes, so neither is lost.
   */
  async settle(
    taskId: string,
    jwe: string,
    uncertain = false,
  ): Promise<{ entryId: string; entryName: string; uncertain: boolean } | null> {
    return navigator.locks.request(`reset-settle:${taskId}`, async () => {
      const t = (await this.tracked()).find((x) => x.taskId === taskId);
      if (!t) return null;
      const password = await openSealed(await deviceKey(this.db, this.userId), jwe);
      const entry = t.entryId ? await this.db.entry(this.userId, t.entryId) : undefined;
      let saved: { entryId: string; entryName: string; uncertain: boolean };
      const when = new Date().toLocaleString();
      const maybe = `An automated reset on ${when} stopped while setting a new password. If the saved password no longer works, this one was being set: ${password}`;
      if (entry) {
        await this.vault.change(entry.id, (secrets) =>
          uncertain
            ? { notes: secrets.notes ? `${secrets.notes}\n\n${maybe}` : maybe }
            : { password },
        );
        saved = { entryId: entry.id, entryName: entry.name, uncertain };
      } else {
        const name = t.service || "Reset password";
        const note = uncertain ? maybe : `Password set by an automated reset on ${when}.`;
        const id = await this.vault.create({
          name,
          website: t.service,
          url: t.serviceUrl,
          tags: [],
          username: t.email,
          password,
          notes: note,
          category: "login",
          totp: "",
        });
        saved = { entryId: id, entryName: name, uncertain };
      }
      await this.untrack(taskId);
      return saved;
    });
  }
}
