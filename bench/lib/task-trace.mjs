// Chrome's trace (devtools.timeline) around a step of a bench: each task of the page's main thread
// with its wall time and its own CPU time. The Long Tasks API counts wall time, which on a loaded
// machine is mostly the thread waiting for a core; the CPU time says what the page itself asked.
//   const stop = await startTrace(browser, page); ...; printTasks("sign-in", await stop(), "vault:click");
// BENCH_TRACE_DETAIL=1 also sums the tasks by what started each (a worker's message, a data pipe,
// a timer...) and lists each long task's slices over 3 ms (wall and CPU): a slice with wall time and
// no CPU is the thread waiting for a core (or for another process's answer), not work of the page.
// BENCH_TRACE_DETAIL=N (N > 1) sums only the tasks of the first N ms after the mark.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";

/** Starts tracing `page`'s renderer; the function returned stops and returns the trace's events. */
export async function startTrace(browser, page) {
  const path = join(tmpdir(), `bench-trace-${process.pid}-${Date.now()}.json`);
  // BENCH_TRACE_CATEGORIES adds Chrome's own (comma-separated: "mojom,ipc" shows a synchronous call
  // to another process inside a task).
  const more = (process.env.BENCH_TRACE_CATEGORIES ?? "").split(",").filter(Boolean);
  await browser.startTracing(page, {
    path,
    categories: [
      "devtools.timeline",
      "disabled-by-default-devtools.timeline",
      "blink.user_timing",
      "toplevel",
      "v8",
      ...more,
    ],
  });
  return async () => {
    await browser.stopTracing();
    const trace = JSON.parse(readFileSync(path, "utf8"));
    rmSync(path, { force: true });
    return trace.traceEvents ?? trace;
  };
}

/** A slice's own facts for the detail listing: its script and place, or its layout's size. */
function describe(e) {
  const d = e.args?.data ?? e.args?.beginData ?? {};
  if (d.url)
    return `${d.url.replace(/^.*\//, "")}:${d.lineNumber ?? ""}:${d.columnNumber ?? ""} ${d.functionName ?? ""}`;
  return JSON.stringify(d).slice(0, 140);
}

/** What ran inside a task, by the trace's own names: layout, style, paint, GC, script and its event. */
const PARTS = new Set([
  "Layout",
  "UpdateLayoutTree",
  "Paint",
  "Commit",
  "MajorGC",
  "MinorGC",
  "TimerFire",
  "FireAnimationFrame",
  "HandlePostMessage",
  "EvaluateScript",
  "v8.compile",
  "v8.compileModule",
  "v8.evaluateModule",
  "ParseHTML",
]);

/**
 * The main thread's tasks from the one that holds the mark `from` on: those over 50 ms of wall
 * time or `minCpu` ms of CPU, each with what ran in it. Returns the tasks over 50 ms of wall time:
 * their start (ms of CLOCK_MONOTONIC, the clock of Chrome's trace on Linux), wall and CPU time,
 * and process.
 */
export function printTasks(label, events, from, minCpu = 25) {
  const start = events.find((e) => e.name === from)?.ts;
  const mains = new Set(
    events
      .filter((e) => e.name === "thread_name" && e.args?.name === "CrRendererMain")
      .map((e) => `${e.pid}:${e.tid}`),
  );
  const own = events
    .filter(
      (e) =>
        e.ph === "X" &&
        mains.has(`${e.pid}:${e.tid}`) &&
        (start === undefined || e.ts + e.dur >= start),
    )
    .sort((a, b) => a.ts - b.ts);
  const tasks = own.filter((e) => e.name === "RunTask");
  const ms = (us) => Math.round((us ?? 0) / 1000);
  const shown = tasks.filter((t) => t.dur > 50_000 || (t.tdur ?? 0) > minCpu * 1000);
  console.log(
    `trace ${label}: ${tasks.filter((t) => t.dur > 50_000).length} tasks over 50 ms of wall time, ${tasks.filter((t) => (t.tdur ?? 0) > 50_000).length} over 50 ms of CPU; longest ${ms(Math.max(0, ...tasks.map((t) => t.dur)))} ms wall, ${ms(Math.max(0, ...tasks.map((t) => t.tdur ?? 0)))} ms CPU`,
  );
  if (process.env.BENCH_TRACE_DETAIL) {
    // Every task by what started it (its first slice's name): where the main thread's CPU went.
    const kinds = new Map();
    // BENCH_TRACE_DETAIL=N (over 1): only the tasks of the first N ms after the mark.
    const until =
      Number(process.env.BENCH_TRACE_DETAIL) > 1
        ? (start ?? 0) + Number(process.env.BENCH_TRACE_DETAIL) * 1000
        : Infinity;
    for (const t of tasks.filter((t) => t.ts < until)) {
      const first = own.find(
        (e) =>
          e !== t &&
          e.ts >= t.ts &&
          e.ts + e.dur <= t.ts + t.dur &&
          e.name !== "ThreadControllerImpl::RunTask",
      );
      const k = kinds.get(first?.name ?? "(none)") ?? { n: 0, cpu: 0, wall: 0, max: 0 };
      kinds.set(first?.name ?? "(none)", {
        n: k.n + 1,
        cpu: k.cpu + (t.tdur ?? 0),
        wall: k.wall + t.dur,
        max: Math.max(k.max, t.tdur ?? 0),
      });
    }
    for (const [name, k] of [...kinds].sort((a, b) => b[1].cpu - a[1].cpu).slice(0, 8))
      console.log(
        `    ${name}: ${k.n} tasks, ${ms(k.cpu)} ms CPU (longest ${ms(k.max)}), ${ms(k.wall)} ms wall`,
      );
  }
  for (const t of shown) {
    const parts = new Map();
    for (const e of own) {
      if (e.ts < t.ts || e.ts + e.dur > t.ts + t.dur || !PARTS.has(e.name)) continue;
      parts.set(e.name, (parts.get(e.name) ?? 0) + (e.tdur ?? e.dur));
    }
    const inside = [...parts]
      .sort((a, b) => b[1] - a[1])
      .filter(([, us]) => us >= 1000)
      .map(([n, us]) => `${n} ${ms(us)}`)
      .join(", ");
    console.log(
      `  +${ms(t.ts - (start ?? t.ts))} ms: ${ms(t.dur)} ms wall, ${ms(t.tdur)} ms CPU${inside ? ` (${inside})` : ""}`,
    );
    if (process.env.BENCH_TRACE_DETAIL)
      for (const e of own
        .filter((e) => e !== t && e.ts >= t.ts && e.ts + e.dur <= t.ts + t.dur && e.dur > 3000)
        .slice(0, 25))
        console.log(
          `      ${ms(e.ts - t.ts)} ${e.name} ${ms(e.dur)}w ${ms(e.tdur)}c ${describe(e)}`,
        );
  }
  return tasks
    .filter((t) => t.dur > 50_000)
    .map((t) => ({ at: t.ts / 1000, wall: t.dur / 1000, cpu: (t.tdur ?? 0) / 1000, pid: t.pid }));
}
