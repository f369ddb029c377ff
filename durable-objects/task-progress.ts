import { DurableObject } from "cloudflare:workers";
import { sseJsonFrame, sseResponse, TERMINAL_TASK_STATUSES as TERMINAL } from "../src/kernel/sse";

export type TaskEvent = { event: "status" | "screenshot"; data: Record<string, unknown> };

const enc = new TextEncoder();
const frame = (e: TaskEvent) => enc.encode(sseJsonFrame(e.event, e.data));

/**
 * Progress of one reset task (one object per task id): fans events out to every open stream,
 * replays the latest status to a new one (DECISIONS D14), and holds a user-supplied OTP until the
 * flow takes it, and the cancellation the run polls for. Only the latest status is kept;
 * screenshots are never stored.
 */
export class TaskProgress extends DurableObject {
  private streams = new Set<WritableStreamDefaultWriter<Uint8Array>>();

  async publish(e: TaskEvent): Promise<void> {
    if (e.event === "status") await this.ctx.storage.put("latest", e);
    // Writes are not awaited: a write resolves only once its reader takes the frame, so one reader
    // that stopped reading would hold the run (and the owner's cancel) here for good. A reader that
    // left a stream's buffer full is dropped instead; reconnecting replays the latest status.
    for (const w of this.streams) {
      if ((w.desiredSize ?? 0) <= 0) {
        this.streams.delete(w);
        w.abort().catch(() => undefined);
        continue;
      }
      w.write(frame(e)).catch(() => this.streams.delete(w));
    }
    if (e.event === "status" && TERMINAL.has(String(e.data.status))) {
      for (const w of this.streams) w.close().catch(() => undefined);
      this.streams.clear();
    }
  }

  async latest(): Promise<TaskEvent | undefined> {
    return this.ctx.storage.get<TaskEvent>("latest");
  }

  async fetch(): Promise<Response> {
    // Room for a run's worth of frames, so only a reader that stopped reading is dropped (publish).
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>(undefined, {
      highWaterMark: 64,
    });
    const writer = writable.getWriter();
    const latest = await this.latest();
    if (latest) writer.write(frame(latest)).catch(() => undefined);
    if (latest && TERMINAL.has(String(latest.data.status))) writer.close().catch(() => undefined);
    else this.streams.add(writer);
    return sseResponse(readable);
  }

  /** Marks the task cancelled (the run polls this) and ends every stream with the status. */
  async cancel(): Promise<void> {
    await this.ctx.storage.put("cancelled", true);
    await this.publish({ event: "status", data: { status: "cancelled" } });
  }

  async isCancelled(): Promise<boolean> {
    return (await this.ctx.storage.get<boolean>("cancelled")) === true;
  }

  /**
   * The new password, sealed to the client's key (JWE: only ciphertext here), kept from before the
   * site is given it until the task ends: a run that dies while or after typing it leaves it to be
   * delivered by whichever run ends the task.
   */
  async holdPassword(jwe: string): Promise<void> {
    await this.ctx.storage.put("held", jwe);
  }

  async heldPassword(): Promise<string | null> {
    return (await this.ctx.storage.get<string>("held")) ?? null;
  }

  async putOtp(code: string): Promise<void> {
    await this.ctx.storage.put("otp", code);
  }

  async takeOtp(): Promise<string | null> {
    const code = (await this.ctx.storage.get<string>("otp")) ?? null;
    if (code) await this.ctx.storage.delete("otp");
    return code;
  }
}

export type TaskProgressClient = {
  publish(e: TaskEvent): Promise<void>;
  stream(): Promise<Response>;
  holdPassword(jwe: string): Promise<void>;
  heldPassword(): Promise<string | null>;
  putOtp(code: string): Promise<void>;
  takeOtp(): Promise<string | null>;
  cancel(): Promise<void>;
  isCancelled(): Promise<boolean>;
};

export function taskProgress(
  ns: DurableObjectNamespace<TaskProgress>,
  taskId: string,
): TaskProgressClient {
  const stub = ns.get(ns.idFromName(taskId));
  return {
    publish: (e) => stub.publish(e),
    stream: () => stub.fetch("https://task-progress/stream"),
    holdPassword: (jwe) => stub.holdPassword(jwe),
    heldPassword: () => stub.heldPassword() as Promise<string | null>,
    putOtp: (code) => stub.putOtp(code),
    takeOtp: () => stub.takeOtp() as Promise<string | null>,
    cancel: () => stub.cancel(),
    isCancelled: () => stub.isCancelled() as Promise<boolean>,
  };
}
