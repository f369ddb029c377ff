// Chrome's CPU profiler (CDP Profiler domain) around a step of a bench: what the page's main
// thread ran, summed by function (self time), so a figure comes with what is on its path.
//   const stop = await startProfile(page); ...; printProfile("keystrokes", await stop());
import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** Starts sampling the page's main thread; the function returned stops and returns the profile. */
export async function startProfile(page, intervalUs = 200) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: intervalUs });
  await cdp.send("Profiler.start");
  return async () => {
    const { profile } = await cdp.send("Profiler.stop");
    await cdp.detach();
    return profile;
  };
}

/**
 * Prints the functions with the most self time (idle and the profiler's own nodes left out), and
 * keeps the profile under `dir` (open it in Chrome's DevTools, Performance panel) when one is given.
 */
export function printProfile(label, profile, dir, top = 12) {
  if (dir)
    writeFileSync(join(dir, `${label.replace(/\W+/g, "-")}.cpuprofile`), JSON.stringify(profile));
  const dt = new Map();
  for (let i = 0; i < profile.samples.length; i++)
    dt.set(profile.samples[i], (dt.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0));
  const self = new Map();
  let busy = 0;
  for (const n of profile.nodes) {
    const us = dt.get(n.id) ?? 0;
    const f = n.callFrame;
    if (["(idle)", "(program)", "(root)"].includes(f.functionName)) continue;
    busy += us;
    const key = `${f.functionName || "(anonymous)"} ${f.url.split("/").pop()}:${f.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + us);
  }
  const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, top);
  console.log(
    `profile ${label}: ${(busy / 1000).toFixed(0)} ms of script and engine time; by self time:`,
  );
  for (const [k, us] of rows) console.log(`  ${(us / 1000).toFixed(1).padStart(8)} ms  ${k}`);
}

/**
 * The stretches of the profile where the main thread never went idle for longer than `minMs` (the
 * long tasks, as the profile sees them), each with the functions that took most of it.
 */
export function printLongStretches(label, profile, minMs = 50, top = 4) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const name = (n) =>
    `${n.callFrame.functionName || "(anonymous)"} ${n.callFrame.url.split("/").pop()}:${n.callFrame.lineNumber + 1}`;
  const stretches = [];
  let cur = null;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    const n = byId.get(profile.samples[i]);
    const idle = !n || n.callFrame.functionName === "(idle)";
    if (idle) {
      if (cur && cur.end - cur.start >= minMs * 1000) stretches.push(cur);
      cur = null;
      continue;
    }
    cur ??= { start: t, end: t, self: new Map() };
    const dt = profile.timeDeltas[i + 1] ?? 0;
    cur.end = t + dt;
    cur.self.set(name(n), (cur.self.get(name(n)) ?? 0) + dt);
  }
  if (cur && cur.end - cur.start >= minMs * 1000) stretches.push(cur);
  console.log(`profile ${label}: ${stretches.length} busy stretches over ${minMs} ms`);
  for (const s of stretches.sort((a, b) => b.end - b.start - (a.end - a.start)).slice(0, 8)) {
    const parts = [...s.self]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, us]) => `${k} ${(us / 1000).toFixed(0)} ms`);
    console.log(
      `  ${((s.end - s.start) / 1000).toFixed(0).padStart(5)} ms at +${((s.start - profile.startTime) / 1e6).toFixed(2)} s: ${parts.join("; ")}`,
    );
  }
}
