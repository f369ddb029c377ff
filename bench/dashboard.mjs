// Web app bench: with a 10,000-entry vault, the time from pressing Unlock (and from a
// reload of an unlocked vault) to the vault's first rows on screen, and to every row listed; the
// first sign-in on a new browser (full pull and indexing); a search keystroke to the filtered
// list and a click on a row to the entry's detail; and the bundle sizes. The vault is
// sealed with the web client's own crypto and pushed through sync (bench/lib/vault-seed.mjs).
// --profile samples the page's main thread (Chrome's CPU profiler) during the keystrokes and the
// opens, prints what took the time and keeps the profiles in bench/out/ (DevTools opens them).
// The keystroke and open figures are taken from real key presses and clicks, from the input event's
// timestamp to the frame that shows the change, each sample taken apart (bench/lib/page-samples.mjs);
// the earlier in-page figure (a synthetic event, polled) is printed beside them for comparison.
// --runs 0 leaves out the lock, unlock and reload runs.
// --first-sync stops after the first sign-in on a new browser (the full pull), for side-by-side runs;
// --trace records Chrome's trace of each first sign-in and lists its main-thread tasks with their
// CPU time beside their wall time (on a loaded machine a long task is mostly a wait for a core).
// --first-syncs N signs in N times, each in a new browser context, and prints each run's timeline
// from the click (the app's vault:* performance marks) and the medians.
// --key-ms N types the passphrase at a key every N ms before the click (0: filled at once).
// --floor runs a probe beside each first sign-in: a blank page in its own context whose main thread
// runs a 2 ms task every 50 ms and nothing else. Its tasks over 50 ms in the same window are the
// machine's floor: waits for a core that no page's own work causes. --floor-ms N sizes the probe's
// tasks (N ms of work on an idle core, every 100 ms; default 2 ms every 50 ms): at 10 ms, a page with
// frames and script evaluations the size of the vault's own, and nothing else to do.
// --sched records the kernel's context switches (perf sched) through each first sign-in and prints
// the threads that had the cores and, for each of the page's long tasks, its main thread's time on a
// core, waiting for one and asleep (bench/lib/sched-stalls.mjs).
// --server-nice N sets the niceness of the local server's share of the machine once the vault is
// seeded (Linux autogroups: the kernel shares the cores between sessions before threads, so while
// the server is busy during a pull all of the browser's processes share one core of two). A
// deployed server is not on the person's machine; here, a server made to yield is also slower to
// answer (bench/lib/harness.mjs).
//   node bench/dashboard.mjs [--runs 10] [--samples 40] [--port 8732] [--entries 10000] [--profile] [--trace] [--first-sync] [--first-syncs 1] [--key-ms 0] [--floor] [--floor-ms 2] [--sched] [--server-nice 0]
import { readdirSync, readFileSync, statSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";
import { ROOT } from "../scripts/lib/dev-identity.mjs";
import { printLongStretches, printProfile, startProfile } from "./lib/cpu-profile.mjs";
import { printTasks, startTrace } from "./lib/task-trace.mjs";
import { startProbe } from "./lib/floor-probe.mjs";
import { monoOf, printSched, startSched } from "./lib/sched-stalls.mjs";
import { eventTimingInit, printSamples, sampler } from "./lib/page-samples.mjs";
import { fmt, signDevToken, startWorker } from "./lib/harness.mjs";
import { seedVault } from "./lib/vault-seed.mjs";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "10" },
    port: { type: "string", default: "8732" },
    entries: { type: "string", default: "10000" },
    samples: { type: "string", default: "40" },
    profile: { type: "boolean", default: false },
    trace: { type: "boolean", default: false },
    "first-sync": { type: "boolean", default: false },
    "first-syncs": { type: "string", default: "1" },
    "key-ms": { type: "string", default: "0" },
    floor: { type: "boolean", default: false },
    "floor-ms": { type: "string", default: "2" },
    sched: { type: "boolean", default: false },
    "server-nice": { type: "string" },
  },
});
const FLOOR_MS = Number(values["floor-ms"]);
const OUT = join(ROOT, "bench", "out");
/** Starts the profiler when --profile asks for it; the function returned stops it and prints. */
const profiled = async (page, label, stretches = false) => {
  if (!values.profile) return async () => {};
  const stop = await startProfile(page);
  return async () => {
    const profile = await stop();
    printProfile(label, profile, OUT);
    if (stretches) printLongStretches(label, profile);
  };
};
const RUNS = Number(values.runs);
const ENTRIES = Number(values.entries);
const SAMPLES = Number(values.samples);
const PASSPHRASE = "bench passphrase";

const q = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};
const line = (label, xs) =>
  console.log(
    `${label.padEnd(44)} p50 ${fmt(q(xs, 0.5), 0)} ms, p95 ${fmt(q(xs, 0.95), 0)} ms, max ${fmt(q(xs, 1), 0)} ms (${xs.length} runs)`,
  );

const worker = await startWorker({ port: Number(values.port), name: "dashboard" });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-dev-shm-usage"],
});
try {
  const sub = `bench-dash-${Date.now()}`;
  const token = await signDevToken({ sub, email: `${sub}@example.test`, ttl: 4 * 3600 });
  const t0 = performance.now();
  await seedVault({
    base: worker.base,
    token,
    sub,
    passphrase: PASSPHRASE,
    count: ENTRIES,
    website: (n) => `service${n % 2500}.example.com`,
  });
  console.log(`seeded ${ENTRIES} entries in ${fmt((performance.now() - t0) / 1000, 1)} s`);
  if (values["server-nice"] !== undefined)
    console.log(
      `the server's share of the machine: ${worker.niceness(Number(values["server-nice"])) ?? "no autogroups on this kernel, left as it was"}`,
    );

  // --first-syncs N: the first sign-in N times, each in a new browser context (a browser that has
  // never held the vault), on the one seeded vault; the later phases run in the last one.
  const heading = `Entries (${ENTRIES})`;
  const firstSyncs = [];
  let context;
  let page;
  let timed;
  for (let run = 0; run < Number(values["first-syncs"]); run++) {
    await context?.close();
    context = await browser.newContext({ baseURL: worker.base });
    // Every long task (over 50 ms on the main thread) the page runs, for "the longest task while it
    // fills in" (Long Tasks API).
    await context.addInitScript(() => {
      window.__longTasks = [];
      new PerformanceObserver((l) => {
        for (const t of l.getEntries())
          window.__longTasks.push({ start: t.startTime, duration: t.duration });
      }).observe({ type: "longtask", buffered: true });
    });
    await context.addInitScript(eventTimingInit);
    // The app's own marks on the way from "Open vault" to the first row (performance.mark, named
    // vault:*), kept across the navigation from the sign-in page to the vault page in sessionStorage
    // with their wall-clock time, for the timeline printed after the first sign-in.
    // Only the first of each name is kept (the timeline prints no other): a pull marks every page
    // twice, and parsing and writing the kept list again at each was the bench's own work on the
    // page's main thread, during the very window whose long tasks it counts.
    await context.addInitScript(() => {
      const mark = performance.mark.bind(performance);
      const named = new Set();
      performance.mark = (name, options) => {
        const m = mark(name, options);
        if (name.startsWith("vault:") && !named.has(name)) {
          named.add(name);
          const kept = JSON.parse(sessionStorage.getItem("bench-marks") ?? "[]");
          kept.push([name, performance.timeOrigin + m.startTime]);
          sessionStorage.setItem("bench-marks", JSON.stringify(kept));
        }
        return m;
      };
    });
    // The first sign-in as the person sees it, in the pages themselves (as the keystrokes and opens
    // are taken): from the click's own timestamp on the sign-in page (when the browser took the
    // release of the button) to the frame that first shows a row, and to the frame that shows every
    // row listed, on the vault page. Kept in sessionStorage in wall-clock time across the
    // navigation. The figures printed beside them from the bench's side also hold Playwright's
    // actionability checks before its click and its locator's polling, across a new document,
    // after the row is drawn: about 0.5 s idle that no person waits for.
    await context.addInitScript(
      ([n]) => {
        const keep = (name, t) => {
          const kept = JSON.parse(sessionStorage.getItem("bench-seen") ?? "{}");
          if (name in kept) return;
          kept[name] = performance.timeOrigin + t;
          sessionStorage.setItem("bench-seen", JSON.stringify(kept));
        };
        addEventListener(
          "click",
          (ev) => {
            const b = ev.target instanceof Element ? ev.target.closest("button") : null;
            if (b && b.textContent?.trim() === "Open vault") keep("click", ev.timeStamp);
          },
          { capture: true },
        );
        // This document's first row and complete list, as promises the bench awaits (bench-side
        // polling would put Playwright's selector engine into the page: a script evaluation of 10-15 ms
        // on the page's main thread in the middle of the pull, the bench's and not the page's).
        const seen = {};
        for (const name of ["first", "all"])
          window[`__bench_${name}`] = new Promise((resolve) => (seen[name] = resolve));
        // The frame after the change: its callbacks run, then a task posted from it runs once the
        // frame's own main-thread work (style, layout, paint) is over.
        const painted = (name) =>
          requestAnimationFrame(() => {
            const ch = new MessageChannel();
            ch.port1.onmessage = () => {
              keep(name, performance.now());
              seen[name]();
            };
            ch.port2.postMessage(0);
          });
        let first = false;
        let all = false;
        const mo = new MutationObserver(() => {
          const list = document.getElementById("entries");
          if (!list) return;
          if (!first && list.querySelector("li[data-id]")) (first = true), painted("first");
          if (
            !all &&
            list.dataset.rows === String(n) &&
            document.getElementById("entries-heading")?.textContent === `Entries (${n})`
          )
            (all = true), painted("all"), mo.disconnect();
        });
        mo.observe(document, {
          childList: true,
          subtree: true,
          characterData: true,
          attributes: true,
          attributeFilter: ["data-rows"],
        });
      },
      [ENTRIES],
    );
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    // The auth cookie the worker sets at the end of an OpenID sign-in.
    await context.addCookies([
      { name: "access_token", value: token, url: worker.base, httpOnly: true, sameSite: "Strict" },
    ]);
    page = await context.newPage();
    /** Milliseconds from `start` until the first row shows, and until every entry has its row. */
    // `inPage`: wait on the page's own promises (the first sign-in, whose long tasks are counted)
    // rather than poll it from here.
    timed = async (start, inPage = false) => {
      const t = performance.now();
      await start();
      if (inPage) await inDocument(page, () => window.__bench_first);
      else await page.locator("#entries li").first().waitFor({ timeout: 120_000 });
      const first = performance.now() - t;
      if (inPage) await inDocument(page, () => window.__bench_all);
      else {
        await page.waitForFunction(
          ([h, n]) =>
            document.getElementById("entries-heading")?.textContent === h &&
            document.getElementById("entries")?.dataset.rows === String(n),
          [heading, ENTRIES],
          { timeout: 300_000, polling: 50 },
        );
        // The frame's task that records "all" may run just after the bench saw the list complete.
        await page.waitForFunction(
          () => "all" in JSON.parse(sessionStorage.getItem("bench-seen") ?? "{}"),
          undefined,
          { timeout: 10_000, polling: 20 },
        );
      }
      const seen = await page.evaluate(() =>
        JSON.parse(sessionStorage.getItem("bench-seen") ?? "{}"),
      );
      return {
        first,
        all: performance.now() - t,
        started: t,
        seenFirst: seen.first - seen.click,
        seenAll: seen.all - seen.click,
      };
    };

    await page.goto("/");
    // --key-ms N types the passphrase a key every N ms, as a person does (the page prepares while
    // they type: its service worker installs, the vault page's modules arrive); 0 fills it at once,
    // the case where nothing is ready at the click.
    // Keys go where the focus is: typing starts once the form is shown, as a person's would.
    await page.getByLabel("Master passphrase").waitFor();
    if (Number(values["key-ms"]) > 0)
      await page
        .getByLabel("Master passphrase")
        .pressSequentially(PASSPHRASE, { delay: Number(values["key-ms"]) });
    else await page.getByLabel("Master passphrase").fill(PASSPHRASE);
    const probe = values.floor
      ? await startProbe(browser, { workMs: FLOOR_MS, everyMs: FLOOR_MS > 2 ? 100 : 50 })
      : null;
    const signInProfiled = await profiled(page, "dashboard-first-sign-in", true);
    const traced = values.trace ? await startTrace(browser, page) : null;
    const scheduled = values.sched ? await startSched() : null;
    const signIn = await timed(
      () => page.getByRole("button", { name: "Open vault" }).click(),
      true,
    );
    console.log(
      `first sign-in on this browser (full pull of ${ENTRIES}, indexing): first row ${fmt(signIn.first / 1000, 1)} s, all listed ${fmt(signIn.all / 1000, 1)} s (from the bench's side)`,
    );
    console.log(
      `  as seen (click's timestamp -> the frame that shows it): first row ${fmt(signIn.seenFirst, 0)} ms, every row listed ${fmt(signIn.seenAll, 0)} ms`,
    );
    await printTimeline(page);
    // The page fills in after the rows are listed (usernames, marks and folders opened entry by
    // entry): until that pass is done, and the longest task from the click until 2 s after it.
    const settled = await page.evaluate(async (clickedAgo) => {
      const since = performance.now() - clickedAgo;
      const deadline = performance.now() + 120_000;
      // The page marks the end of its pass over the entries (#entries[data-read], removed while a
      // pass runs); a build without the mark is taken as done when no long task came for 10 s.
      const read = () => Number(document.getElementById("entries")?.dataset.read ?? NaN);
      for (;;) {
        const tasks = window.__longTasks.filter((t) => t.start >= since);
        const lastEnd = tasks.reduce((m, t) => Math.max(m, t.start + t.duration), since);
        // ...and no sync running (a pull's end reads the store again and starts another pass).
        const marked =
          read() > since && document.getElementById("net-state")?.textContent === "Online";
        if (
          (marked && performance.now() - read() >= 2000) ||
          (!marked && performance.now() - lastEnd >= 10_000) ||
          performance.now() > deadline
        ) {
          return {
            after: lastEnd - since,
            longest: tasks.reduce((m, t) => Math.max(m, t.duration), 0),
            count: tasks.length,
            read: read() - since,
            tasks: tasks.map((t) => [t.start - since, t.duration]),
          };
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    }, performance.now() - signIn.started);
    await signInProfiled();
    const traceLong = traced ? printTasks("first sign-in", await traced(), "vault:click") : null;
    console.log(
      `first sign-in: main thread quiet ${fmt(settled.after / 1000, 1)} s after the click; longest task ${fmt(settled.longest, 0)} ms, ${settled.count} tasks over 50 ms${Number.isFinite(settled.read) ? `; every entry opened ${fmt(settled.read / 1000, 1)} s after the click` : ""}`,
    );
    // Each long task's place on the timeline above, to tell what it was.
    if (settled.tasks.length)
      console.log(
        `  long tasks (ms after the click: duration): ${settled.tasks.map(([at, d]) => `${fmt(at, 0)}: ${fmt(d, 0)}`).join(", ")}`,
      );
    // The trace's tasks where there is one (their times are the kernel's clock); else the page's, in
    // the bench's time (within the few ms its evaluation took to arrive).
    const clicked = monoOf(signIn.started);
    if (scheduled)
      printSched(
        "first sign-in",
        await scheduled(),
        clicked,
        traceLong ?? settled.tasks.map(([at, wall]) => ({ at: clicked + at, wall })),
      );
    let floorTasks = null;
    if (probe) {
      // The page's window: from the click until its pass over the entries is done (or its last long task).
      const span = Math.max(
        settled.after,
        Number.isFinite(settled.read) ? settled.read : 0,
        signIn.all,
      );
      const floor = await probe(
        performance.timeOrigin + signIn.started,
        performance.timeOrigin + signIn.started + span,
      );
      console.log(
        `  floor (a probe page's ${FLOOR_MS} ms tasks over the same ${fmt(span / 1000, 1)} s): ${floor.length} over 50 ms${floor.length ? `, longest ${fmt(Math.max(...floor), 0)} ms` : ""}`,
      );
      floorTasks = floor;
    }
    firstSyncs.push({
      ...signIn,
      longest: settled.longest,
      count: settled.count,
      floor: floorTasks,
    });
  }
  if (firstSyncs.length > 1) {
    line(
      "first sign-in -> first row (bench's side)",
      firstSyncs.map((r) => r.first),
    );
    line(
      "first sign-in -> all listed (bench's side)",
      firstSyncs.map((r) => r.all),
    );
    line(
      "first sign-in -> first row, as seen",
      firstSyncs.map((r) => r.seenFirst),
    );
    line(
      "first sign-in -> every row listed, as seen",
      firstSyncs.map((r) => r.seenAll),
    );
    const tally = (xs) =>
      `${xs.reduce((a, b) => a + b, 0)} in all, ${xs.filter((n) => n === 0).length} of ${xs.length} sign-ins with none`;
    console.log(
      `first sign-in: tasks over 50 ms on the vault page ${tally(firstSyncs.map((r) => r.count))}`,
    );
    if (values.floor)
      console.log(
        `first sign-in: tasks over 50 ms on the probe page (the floor) ${tally(firstSyncs.map((r) => r.floor?.length ?? 0))}`,
      );
  }
  /** Everything after the first sign-in: keystrokes, opens, unlocks and reloads, bundle sizes. */
  async function laterPhases() {
    // The vault page at this size, once the sign-in's pass is over: a keystroke in the search to the
    // filtered list on screen, and a click on a row to its detail (the frame at once; the fields after
    // the audited reveal round trip). Timed inside the page, to the next frame after the change.
    // Before the lock and unlock runs, so a run that cannot finish those still prints these.
    const keystrokes = [];
    const keysProfiled = await profiled(page, "dashboard-keystrokes");
    for (const word of ["service1", "service22", "service7", "service2400", "nothing"]) {
      await page.evaluate(() => {
        const s = document.getElementById("search");
        s.value = "";
        s.dispatchEvent(new Event("input"));
      });
      await page.waitForFunction(
        ([h]) => document.getElementById("entries-heading")?.textContent === h,
        [heading],
      );
      for (let i = 1; i <= word.length; i++) {
        keystrokes.push(
          await page.evaluate(
            async (q) => {
              const s = document.getElementById("search");
              const h = document.getElementById("entries-heading");
              const t = performance.now();
              s.value = q;
              s.dispatchEvent(new Event("input"));
              await new Promise((resolve) => {
                const check = () =>
                  h.textContent.startsWith(`Entries matching “${q}”`)
                    ? resolve()
                    : setTimeout(check, 0);
                check();
              });
              await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
              return performance.now() - t;
            },
            word.slice(0, i),
          ),
        );
      }
    }
    // One letter from an empty search: a prefix of any word, so the answer is the whole vault or a
    // large share of it (the list drawn again), or nothing.
    const oneLetter = [];
    for (const letter of ["s", "e", "x", "n", "q", "1", "2", "z"]) {
      for (let run = 0; run < 2; run++) {
        await clearSearch(page, heading);
        oneLetter.push(await typedIn(page, letter));
      }
    }
    await keysProfiled();
    line(`keystroke -> filtered list (${ENTRIES} entries)`, keystrokes);
    line(`one letter -> filtered list (${ENTRIES} entries)`, oneLetter);
    await page.evaluate(() => {
      const s = document.getElementById("search");
      s.value = "";
      s.dispatchEvent(new Event("input"));
    });
    await page.waitForFunction(
      ([h]) => document.getElementById("entries-heading")?.textContent === h,
      [heading],
    );
    const frames = [];
    const fields = [];
    const opensProfiled = await profiled(page, "dashboard-opens");
    for (let i = 0; i < SAMPLES; i++) {
      const [frame, full] = await page.evaluate(async (n) => {
        const rows = document.querySelectorAll("#entries button.entry-row");
        const b = rows[(n * 37) % rows.length];
        const box = document.getElementById("revealed");
        const t = performance.now();
        b.click();
        await new Promise((resolve) => {
          const check = () =>
            box.dataset.id === b.dataset.id && !box.hidden ? resolve() : setTimeout(check, 0);
          check();
        });
        await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
        const frame = performance.now() - t;
        await new Promise((resolve) => {
          const check = () => (box.dataset.ready === "true" ? resolve() : setTimeout(check, 0));
          check();
        });
        await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
        return [frame, performance.now() - t];
      }, i);
      frames.push(frame);
      fields.push(full);
    }
    await opensProfiled();
    line("open an entry -> its detail on screen", frames);
    line("open an entry -> fields (audited reveal)", fields);
    await asSeen(page, heading);
    console.log(
      "target: each of the first two under 50 ms at p95; search to clipboard = type, Enter, c (3 steps)",
    );

    const unlock = { first: [], all: [] };
    const reload = { first: [], all: [] };
    for (let i = 0; i < RUNS; i++) {
      await page.getByRole("button", { name: "Lock", exact: true }).click();
      await page.getByRole("button", { name: "Unlock" }).waitFor();
      await page.getByLabel("Master passphrase", { exact: true }).fill(PASSPHRASE);
      const u = await timed(() => page.getByRole("button", { name: "Unlock" }).click());
      unlock.first.push(u.first);
      unlock.all.push(u.all);
      const r = await timed(() => page.reload());
      reload.first.push(r.first);
      reload.all.push(r.all);
    }
    if (RUNS > 0) {
      line(`unlock -> first row (${ENTRIES} entries)`, unlock.first);
      line(`unlock -> all ${ENTRIES} listed`, unlock.all);
      line("reload (unlocked) -> first row", reload.first);
      line(`reload (unlocked) -> all ${ENTRIES} listed`, reload.all);
    }
    await toClipboard(page);

    const files = ["public", join("public", "assets")].flatMap((d) =>
      readdirSync(join(ROOT, d))
        .filter((f) => f.endsWith(".js"))
        .map((f) => join(d, f)),
    );
    const sizes = files
      .map((f) => ({
        f: f.replace(/^public\//, ""),
        raw: statSync(join(ROOT, f)).size,
        gz: gzipSync(readFileSync(join(ROOT, f))).length,
      }))
      .sort((a, b) => b.raw - a.raw);
    const total = sizes.reduce((a, s) => ({ raw: a.raw + s.raw, gz: a.gz + s.gz }), {
      raw: 0,
      gz: 0,
    });
    console.log(
      `bundles: ${sizes.length} scripts, ${fmt(total.raw / 1024, 1)} KiB (${fmt(total.gz / 1024, 1)} KiB gzip); largest: ${sizes
        .slice(0, 5)
        .map((s) => `${s.f} ${fmt(s.raw / 1024, 1)} KiB`)
        .join(", ")}`,
    );
    console.log(
      `target: first render of the vault under 1 s after unlock (load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")} on ${cpus().length} cores)`,
    );
  }
  if (values["first-sync"]) {
    console.log(
      `(--first-sync: stopped after the first sign-in; load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")} on ${cpus().length} cores)`,
    );
  } else await laterPhases();
} catch (e) {
  // What the page showed when a step did not come: the figure's absence needs a reason.
  for (const [i, p] of browser
    .contexts()
    .flatMap((c) => c.pages())
    .entries())
    await p
      .screenshot({ path: join(ROOT, "bench", "out", `dashboard-failure-${i}.png`) })
      .catch(() => {});
  throw e;
} finally {
  await browser.close();
  worker.stop();
}

/**
 * Awaits what `fn` returns in the page's current document, across the navigation from the sign-in
 * page to the vault page (an evaluation in a document that goes away is asked again in the next).
 */
async function inDocument(page, fn) {
  const until = Date.now() + 300_000;
  for (;;) {
    try {
      return await page.evaluate(fn);
    } catch (e) {
      if (Date.now() > until || !/context was destroyed|navigat/i.test(String(e))) throw e;
    }
  }
}

/**
 * The first sign-in's timeline: each of the app's vault:* marks (the first of each name) in ms
 * after the click on "Open vault", with the step from the mark before.
 */
async function printTimeline(page) {
  const marks = await page.evaluate(() => {
    // The vault page's own load (it follows a navigation from the sign-in page), in the same clock.
    const nav = performance.getEntriesByType("navigation")[0];
    const at = (t) => performance.timeOrigin + t;
    const steps = nav
      ? [
          ["nav:start", at(0)],
          ["nav:response", at(nav.responseStart)],
          ["nav:interactive", at(nav.domInteractive)],
        ]
      : [];
    const scripts = performance
      .getEntriesByType("resource")
      .filter((r) => r.initiatorType === "script" || r.name.endsWith(".js"));
    // The vault page's scripts as they came: after the page's first script ran, later ones are the
    // section's and the workers'.
    for (const r of scripts)
      steps.push([
        `script ${r.name.replace(/^.*\//, "").slice(0, 22)}${r.workerStart > 0 ? " (sw)" : r.transferSize === 0 && r.decodedBodySize > 0 ? " (cache)" : ""}`,
        at(r.responseEnd),
      ]);
    return [...JSON.parse(sessionStorage.getItem("bench-marks") ?? "[]"), ...steps];
  });
  const click = marks.find(([n]) => n === "vault:click");
  if (!click) return console.log("timeline: no vault:* marks (a build without them)");
  const seen = new Set();
  const firsts = marks.filter(([n]) => !seen.has(n) && seen.add(n)).sort((a, b) => a[1] - b[1]);
  let before = click[1];
  console.log("timeline from the click (ms after it, +step):");
  for (const [name, at] of firsts) {
    console.log(
      `  ${name.padEnd(28)} ${fmt(at - click[1], 0).padStart(6)}  +${fmt(at - before, 0)}`,
    );
    before = at;
  }
}

/** A query set through the search's input event, timed in the page to the frame after its list. */
function typedIn(page, q) {
  return page.evaluate(async (q) => {
    const s = document.getElementById("search");
    const h = document.getElementById("entries-heading");
    const t = performance.now();
    s.value = q;
    s.dispatchEvent(new Event("input"));
    await new Promise((resolve) => {
      const check = () =>
        h.textContent.startsWith(`Entries matching “${q}”`) ? resolve() : setTimeout(check, 0);
      check();
    });
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    return performance.now() - t;
  }, q);
}

/** Clears the search through its own input event and waits for the whole list. */
async function clearSearch(page, heading) {
  await page.evaluate(() => {
    const s = document.getElementById("search");
    s.value = "";
    s.dispatchEvent(new Event("input"));
  });
  await page.waitForFunction(
    ([h]) => document.getElementById("entries-heading")?.textContent === h,
    [heading],
  );
}

/**
 * Keystrokes and opens as a person makes them: real key presses in the search and real clicks on
 * rows, timed from the input event to the frame that shows the change, each sample taken apart.
 */
async function asSeen(page, heading) {
  const take = await sampler(page);
  const keys = [];
  const keysProfiled = await profiled(page, "dashboard-keystrokes-as-seen", true);
  for (const word of ["service1", "service22", "service7", "service2400", "nothing", "service19"]) {
    await clearSearch(page, heading);
    await page.locator("#search").focus();
    for (let i = 1; i <= word.length && keys.length < SAMPLES; i++)
      keys.push(await take("key", word.slice(0, i), () => page.keyboard.press(word[i - 1])));
  }
  const firstKeys = [];
  for (const letter of ["s", "e", "x", "n", "q", "1", "2", "z"]) {
    await clearSearch(page, heading);
    await page.locator("#search").focus();
    firstKeys.push(await take("key", letter, () => page.keyboard.press(letter)));
  }
  await keysProfiled();
  printSamples(`keystroke -> filtered list, as seen (${ENTRIES})`, keys);
  printSamples(`one letter -> filtered list, as seen (${ENTRIES})`, firstKeys);
  await clearSearch(page, heading);
  const opens = [];
  const opensProfiled = await profiled(page, "dashboard-opens-as-seen", true);
  for (let i = 0; i < SAMPLES; i++) {
    const rows = page.locator("#entries button.entry-row");
    const b = rows.nth((i * 37) % (await rows.count()));
    const id = await b.getAttribute("data-id");
    // Playwright scrolls the row into view before the press; the sample starts at the click event.
    opens.push(await take("open", id, () => b.click()));
    await page.locator("#revealed[data-ready=true]").waitFor();
  }
  await opensProfiled();
  printSamples("open an entry -> its detail, as seen", opens);
}

/**
 * The steps from an unlocked vault to a searched entry's password on the clipboard, as a person
 * makes them right after an unlock: the search has the focus, so type, Enter, c.
 */
async function toClipboard(page) {
  // From the unlock: the search has the focus then (a plain reload leaves Tab's first stop to the skip link).
  await page.getByRole("button", { name: "Lock", exact: true }).click();
  await page.getByLabel("Master passphrase", { exact: true }).fill(PASSPHRASE);
  await page.getByRole("button", { name: "Unlock" }).click();
  await page.locator("#entries li").first().waitFor({ timeout: 120_000 });
  const steps = [];
  const t = performance.now();
  await page.keyboard.type("service2417");
  steps.push("type");
  await page.keyboard.press("Enter");
  steps.push("Enter");
  // A build whose search has no focus after the mount took the keys nowhere: said, not thrown.
  if (
    !(await page
      .locator("#revealed[data-ready=true]")
      .waitFor({ timeout: 30_000 })
      .then(
        () => true,
        () => false,
      ))
  ) {
    console.log(
      `unlocked -> password on the clipboard: type, Enter opened no entry (the keys went to ${await page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName)}): a click or / is needed first`,
    );
    return;
  }
  await page.keyboard.press("c");
  steps.push("c");
  const copied = await (async () => {
    for (let i = 0; i < 100; i++) {
      const text = await page.evaluate(() => navigator.clipboard.readText());
      if (text) return text;
      await new Promise((r) => setTimeout(r, 50));
    }
    return "";
  })();
  const opened = await page.locator("#revealed-heading").innerText();
  console.log(
    `unlocked -> password on the clipboard: ${steps.length} steps (${steps.join(", ")}), ${fmt(performance.now() - t, 0)} ms driven; opened ${opened}, clipboard ${/^pw-\d+-/.test(copied) ? "holds its password" : `holds ${JSON.stringify(copied.slice(0, 12))}`}`,
  );
}
