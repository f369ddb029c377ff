// Per-sample timing of an interaction on a page, as a person sees it: from the input event's own
// timestamp (when the browser took the key or the click) to the frame that shows the change, with
// what each sample contained, so a p95 comes with what its slow samples were made of.
//
// Each sample records in the page:
//   start    the input event's timeStamp (keydown; click, which fires on the button's release)
//   handler  when the page's first listener ran (start -> handler: the main thread was busy
//            elsewhere, or descheduled)
//   drawn    when the change was in the DOM (a MutationObserver: no polling task in the way)
//   frame    the next animation frame's callbacks (style, layout and paint follow at once)
//   painted  a task posted from that frame: the frame's main-thread work is over
// and from the DevTools protocol (Performance.getMetrics before and after): the main thread's CPU
// time (ThreadTime), time in style, layout and script, layouts counted, and the JS heap (a drop
// is a garbage collection); from the Event Timing API, the interaction's duration to the frame
// presented (reported from 16 ms up, in 8 ms steps).
import { fmt } from "./harness.mjs";

/** Installed with context.addInitScript: the Event Timing entries the samples look up. */
export function eventTimingInit() {
  window.__events = [];
  new PerformanceObserver((l) => {
    for (const e of l.getEntries())
      window.__events.push({ name: e.name, start: e.startTime, duration: e.duration });
  }).observe({ type: "event", durationThreshold: 16, buffered: true });
}

/** Arms the page for one sample: `kind` "key" waits for the heading to match `expect`, "open" for entry `expect`'s detail. */
function arm([kind, expect]) {
  const s = { kind };
  window.__sample = s;
  const startEvent = kind === "key" ? "keydown" : "click";
  addEventListener(
    startEvent,
    (ev) => ((s.start = ev.timeStamp), (s.handler = performance.now())),
    { capture: true, once: true },
  );
  s.done = new Promise((resolve) => {
    const finish = () => {
      s.drawn = performance.now();
      requestAnimationFrame(() => {
        s.frame = performance.now();
        const ch = new MessageChannel();
        ch.port1.onmessage = () => ((s.painted = performance.now()), resolve());
        ch.port2.postMessage(0);
      });
    };
    const target = document.getElementById(kind === "key" ? "entries-heading" : "revealed");
    const ready =
      kind === "key"
        ? () => target.textContent.includes(`matching “${expect}”`)
        : () => target.dataset.id === expect && !target.hidden;
    const mo = new MutationObserver(() => ready() && (mo.disconnect(), finish()));
    mo.observe(target, { childList: true, characterData: true, subtree: true, attributes: true });
    setTimeout(() => (mo.disconnect(), (s.timedOut = true), resolve()), 60_000);
  });
}

async function collect() {
  const s = window.__sample;
  await s.done;
  const events = window.__events.filter((e) => Math.abs(e.start - s.start) < 1);
  return { ...s, done: undefined, eventMs: events.reduce((m, e) => Math.max(m, e.duration), 0) };
}

const METRICS = [
  "ThreadTime",
  "TaskDuration",
  "ScriptDuration",
  "LayoutDuration",
  "RecalcStyleDuration",
  "LayoutCount",
  "JSHeapUsedSize",
];
async function metrics(cdp) {
  const { metrics: all } = await cdp.send("Performance.getMetrics");
  return Object.fromEntries(
    all.filter((m) => METRICS.includes(m.name)).map((m) => [m.name, m.value]),
  );
}

/** A sampler on `page`: `take(kind, expect, act)` arms, runs `act` (the real key press or click), and returns the sample. */
export async function sampler(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Performance.enable");
  return async (kind, expect, act) => {
    await page.evaluate(arm, [kind, expect]);
    const before = await metrics(cdp);
    await act();
    const s = await page.evaluate(collect);
    const after = await metrics(cdp);
    const d = (k) => after[k] - before[k];
    if (s.timedOut) throw new Error(`${kind} ${expect}: no change on screen within 60 s`);
    return {
      seen: s.painted - s.start,
      queued: s.handler - s.start,
      work: s.drawn - s.handler,
      toFrame: s.frame - s.drawn,
      frameWork: s.painted - s.frame,
      eventMs: s.eventMs,
      cpuMs: d("ThreadTime") * 1000,
      scriptMs: d("ScriptDuration") * 1000,
      layoutMs: d("LayoutDuration") * 1000,
      styleMs: d("RecalcStyleDuration") * 1000,
      layouts: d("LayoutCount"),
      heapDropKiB: Math.max(0, -d("JSHeapUsedSize") / 1024),
    };
  };
}

export const quantile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};

const ms = (x) => `${fmt(x, 0)}`;
/** Prints a kind's samples: p50/p95 as seen, its parts at p50/p95, and the slowest samples taken apart. */
export function printSamples(label, samples, slowest = 4) {
  const col = (k) => samples.map((s) => s[k]);
  const pq = (k) => `${ms(quantile(col(k), 0.5))}/${ms(quantile(col(k), 0.95))}`;
  console.log(
    `${label.padEnd(44)} p50 ${ms(quantile(col("seen"), 0.5))} ms, p95 ${ms(quantile(col("seen"), 0.95))} ms, max ${ms(quantile(col("seen"), 1))} ms (${samples.length} samples)`,
  );
  console.log(
    `  p50/p95: waiting for the main thread ${pq("queued")}, handlers to the change in the DOM ${pq("work")}, to the frame ${pq("toFrame")}, frame ${pq("frameWork")}; main-thread CPU ${pq("cpuMs")} (script ${pq("scriptMs")}, layout ${pq("layoutMs")}, style ${pq("styleMs")}); Event Timing ${pq("eventMs")} (0: under 16)`,
  );
  for (const s of [...samples].sort((a, b) => b.seen - a.seen).slice(0, slowest)) {
    console.log(
      `  slow: ${ms(s.seen)} ms = waiting ${ms(s.queued)} + handlers ${ms(s.work)} + to frame ${ms(s.toFrame)} + frame ${ms(s.frameWork)}; CPU ${ms(s.cpuMs)} (script ${ms(s.scriptMs)}, layout ${ms(s.layoutMs)} in ${s.layouts}, style ${ms(s.styleMs)}), heap drop ${ms(s.heapDropKiB)} KiB, Event Timing ${ms(s.eventMs)}`,
    );
  }
}
