// The machine's floor for a page's long tasks: a page that does almost nothing, run beside the one
// measured, whose tasks over 50 ms can only be waits the machine imposes (bench/dashboard.mjs --floor).
/**
 * A page in its own context (its own renderer process) whose main thread runs one task every
 * `everyMs` and nothing else: a fixed amount of work, calibrated before the sign-in to take
 * `workMs` on an idle core (a loop timed by the wall clock would end early when the thread waits
 * for a core, and so measure less work under load than when idle). 2 ms every 50 ms is a page
 * that hardly works; 10 ms every 100 ms is a page with the vault's own frames and script
 * evaluations (5-20 ms of CPU each) and its share of the thread. The function returned gives its
 * long tasks (Long Tasks API, wall ms) between two wall-clock times and closes it.
 */
export async function startProbe(browser, { workMs = 2, everyMs = 50 } = {}) {
  const ctx = await browser.newContext();
  const probe = await ctx.newPage();
  await probe.goto("about:blank");
  await probe.evaluate(
    ([workMs, everyMs]) => {
      let sink = 0;
      const spin = (n) => {
        for (let i = 0; i < n; i++) sink = (sink * 31 + i) | 0;
      };
      // The most loops done in 5 ms across a few tries: the idle core's rate.
      let rate = 0;
      for (let k = 0; k < 20; k++) {
        const t = performance.now();
        let n = 0;
        while (performance.now() - t < 5) spin(1000), (n += 1000);
        rate = Math.max(rate, n / (performance.now() - t));
      }
      const loops = Math.round(rate * workMs);
      window.__probeTasks = [];
      new PerformanceObserver((l) => {
        for (const t of l.getEntries())
          window.__probeTasks.push([performance.timeOrigin + t.startTime, t.duration]);
      }).observe({ type: "longtask" });
      setInterval(() => spin(loops), everyMs);
      window.__probeSink = () => sink;
    },
    [workMs, everyMs],
  );
  return async (from, to) => {
    const tasks = await probe.evaluate(() => window.__probeTasks);
    await ctx.close();
    return tasks.filter(([at]) => at >= from && at <= to).map(([, d]) => d);
  };
}
