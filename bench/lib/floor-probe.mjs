// The machine's floor for a page's long tasks: a page that does almost nothing, run beside the one
// measured, whose tasks over 50 ms can only be waits the machine imposes (bench/dashboard.mjs --floor).
/**
 * A page in its own context (its own renderer process) whose main thread runs a 2 ms task every
 * 50 ms and nothing else; the function returned gives its long tasks (Long Tasks API, wall ms)
 * between two wall-clock times and closes it.
 */
export async function startProbe(browser) {
  const ctx = await browser.newContext();
  const probe = await ctx.newPage();
  await probe.goto("about:blank");
  await probe.evaluate(() => {
    window.__probeTasks = [];
    new PerformanceObserver((l) => {
      for (const t of l.getEntries()) window.__probeTasks.push([performance.timeOrigin + t.startTime, t.duration]);
    }).observe({ type: "longtask" });
    setInterval(() => {
      const end = performance.now() + 2;
      while (performance.now() < end);
    }, 50);
  });
  return async (from, to) => {
    const tasks = await probe.evaluate(() => window.__probeTasks);
    await ctx.close();
    return tasks.filter(([at]) => at >= from && at <= to).map(([, d]) => d);
  };
}
