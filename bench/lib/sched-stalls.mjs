// The kernel's view of a step of a bench (Linux `perf sched`): which threads had the machine's
// cores, and, for each of the page's long tasks, its main thread's time on a core, runnable but
// waiting for one, and asleep. The Long Tasks API counts wall time; Chrome's trace gives a task's
// CPU time; only the scheduler tells a task that waited for a core (preempted, or woken and not
// yet run) from one that slept inside (a lock, a synchronous call to another process).
//   const stop = await startSched(); ...; printSched("sign-in", await stop(), fromMs, longTasks);
import { spawn } from "node:child_process";
import { existsSync, rmSync, statSync } from "node:fs";
import { createInterface } from "node:readline";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fmt } from "./harness.mjs";

/** performance.now() in this process as CLOCK_MONOTONIC milliseconds, the clock perf is told to use. */
export const monoOf = (perfNow) =>
  perfNow + (Number(process.hrtime.bigint()) / 1e6 - performance.now());

/**
 * Starts recording every context switch on the machine (needs perf and the right to trace: root,
 * or kernel.perf_event_paranoid at most 1). Resolves to null, having said why, when it cannot;
 * otherwise to a function that stops the recording and returns its switches as `perf sched
 * timehist` reads them.
 */
export async function startSched() {
  const path = join(tmpdir(), `bench-sched-${process.pid}-${Date.now()}.data`);
  const rec = spawn("perf", ["sched", "record", "-k", "CLOCK_MONOTONIC", "-o", path], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let err = "";
  rec.stderr.on("data", (d) => (err += d));
  const ended = new Promise((resolve) =>
    rec.on("close", resolve).on("error", (e) => ((err += e.message), resolve(-1))),
  );
  // perf writes its file's header once its events are set up.
  for (let i = 0; i < 100 && !(existsSync(path) && statSync(path).size > 0); i++) {
    if (
      (await Promise.race([ended, new Promise((r) => setTimeout(() => r("wait"), 50))])) !== "wait"
    ) {
      console.log(
        `--sched: perf could not record (${err.trim().split("\n").pop() || "not found"})`,
      );
      rmSync(path, { force: true });
      return null;
    }
  }
  await new Promise((r) => setTimeout(r, 200));
  return async () => {
    rec.kill("SIGINT");
    await ended;
    const switches = await timehist(path);
    rmSync(path, { force: true });
    return switches;
  };
}

/**
 * Each switch-out: the thread, its process, its state as it left the core ("R": preempted, still
 * runnable; "S" or "D": asleep) and, before this run (ms), its time off a core until woken
 * (`off`: asleep or, after a preemption, waiting for a core), from its wakeup to a core (`woken`)
 * and on the core (`ran`).
 */
async function timehist(path) {
  const out = [];
  const p = spawn("perf", ["sched", "timehist", "--state", "-i", path], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  // "   34270.344 [0001]  chromium[9373]    0.000   4.1   0.9   S" (a thread other than a
  // process's first: "DedicatedWorker[9407/9373]").
  const line =
    /^\s*([\d.]+)\s+\[\d+\]\s+(.+?)\[(\d+)(?:\/(\d+))?\]\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(\S+)\s*$/;
  for await (const l of createInterface({ input: p.stdout })) {
    const m = line.exec(l);
    if (!m) continue;
    out.push({
      at: Number(m[1]) * 1000,
      name: m[2],
      tid: Number(m[3]),
      pid: Number(m[4] ?? m[3]),
      off: Number(m[5]),
      woken: Number(m[6]),
      ran: Number(m[7]),
      state: m[8],
    });
  }
  return out;
}

/**
 * Prints where the cores went over the recording and, for each of `tasks` (long tasks: `at`, their
 * start in ms of CLOCK_MONOTONIC, `wall` ms, and the process whose main thread ran them, or else
 * the renderer whose main thread ran most), what the kernel saw of that thread meanwhile: its time
 * on a core, waiting for one and asleep, and which other threads had the cores. Times are printed
 * from `fromMs` (CLOCK_MONOTONIC ms). "On a core" is the guest kernel's: on a virtual machine it
 * also holds any time the host took the core away, which a thread's CPU time (the trace's) need not.
 */
export function printSched(label, switches, fromMs, tasks) {
  if (!switches.length) return console.log(`sched ${label}: no switches recorded`);
  const span = switches.at(-1).at - switches[0].at;
  // Processes by what their threads are called: a renderer has a "Compositor", Chrome's browser
  // process a "Chrome_IOThread" (its children a "Chrome_ChildIOT..."), the local server is workerd.
  const threads = new Map();
  for (const s of switches) threads.set(s.pid, (threads.get(s.pid) ?? new Set()).add(s.name));
  const kind = (pid) => {
    const names = threads.get(pid) ?? new Set();
    if (names.has("workerd")) return "server";
    if (names.has("Compositor")) return "renderer";
    if (names.has("Chrome_IOThread")) return "browser";
    if ([...names].some((n) => n.startsWith("Chrome_ChildIOT"))) return "chromium child";
    return [...names][0] ?? "?";
  };
  // Each switch's thread, named once ("renderer 9373 main", "browser 9174 Chrome_IOThread 9207").
  const keys = switches.map(
    (s) => `${kind(s.pid)} ${s.pid} ${s.tid === s.pid ? "main" : `${s.name} ${s.tid}`}`,
  );
  /** CPU per thread between two times (ms, monotonic). */
  const ranBetween = (a, b) => {
    const ran = new Map();
    switches.forEach((s, i) => {
      const on = Math.min(b, s.at) - Math.max(a, s.at - s.ran);
      if (on > 0) ran.set(keys[i], (ran.get(keys[i]) ?? 0) + on);
    });
    return [...ran].sort((x, y) => y[1] - x[1]);
  };
  const all = ranBetween(-Infinity, Infinity);
  const busy = all.reduce((a, [, v]) => a + v, 0);
  console.log(
    `sched ${label}: ${fmt(span / 1000, 1)} s recorded, ${fmt(busy / span, 2)} of the machine's cores busy; most CPU:`,
  );
  for (const [k, v] of all.slice(0, 10)) console.log(`    ${k}: ${fmt(v, 0)} ms`);

  const busiest = all.find(([k]) => k.startsWith("renderer ") && k.endsWith(" main"))?.[0];
  if (!tasks.length) return;
  const overlap = (a, b, x, y) => Math.max(0, Math.min(b, y) - Math.max(a, x));
  console.log(
    `  long tasks as the kernel saw the main thread that ran them (ms from ${fmt(fromMs, 1)} of CLOCK_MONOTONIC):`,
  );
  for (const { at, wall, pid } of tasks) {
    const main = pid ? `${kind(pid)} ${pid} main` : busiest;
    const a = at;
    const b = at + wall;
    let on = 0;
    let waiting = 0;
    let asleep = 0;
    // Time off a core counts as waiting for one when the thread left it runnable (preempted), as
    // asleep when it left to sleep; from a wakeup to the core it is waiting again.
    let left = "S";
    for (const s of switches.filter((_, i) => keys[i] === main)) {
      const runFrom = s.at - s.ran;
      const wokenAt = runFrom - s.woken;
      on += overlap(a, b, runFrom, s.at);
      waiting += overlap(a, b, wokenAt, runFrom);
      const off = overlap(a, b, wokenAt - s.off, wokenAt);
      if (left.startsWith("R")) waiting += off;
      else asleep += off;
      left = s.state;
    }
    const others = ranBetween(a, b)
      .filter(([k]) => k !== main)
      .slice(0, 4);
    console.log(
      `    +${fmt(at - fromMs, 0)} ms (${fmt(wall, 0)} ms, ${main}): on a core ${fmt(on, 0)}, waiting for one ${fmt(waiting, 0)}, asleep ${fmt(asleep, 0)}; the cores meanwhile: ${others.map(([k, v]) => `${k} ${fmt(v, 0)}`).join(", ")}`,
    );
  }
}
