// The trivial route and the pairing that bench/hot-paths.mjs and bench/peer-sync.mjs share: a route
// that does nearly nothing but authenticate (the floor every other route is set against), and wrk
// runs taken in pairs with it, so each ratio compares two figures of the same moment of a shared
// machine. Also the autofill match path both benches measure.
import { wrk } from "./harness.mjs";

export const TRIVIAL = "/api/auth/csrf-token";
export const MATCH_PATH = "/api/passwords/match?url=https%3A%2F%2Flogin.site42.example.com%2Fx";

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * The trivial route for `probe` (a benchSession): `once()` is one request's latency in ms, `url`
 * its address for wrk, and `paired(url, headers, extra)` runs wrk on the trivial route and on `url`
 * in turn, `pairs` times. Each ratio is taken within its pair and the median is reported: on this
 * shared machine the load shifts within a minute, and a trivial figure taken minutes earlier moved
 * a ratio by half (0.43 to 0.72 for the same route).
 */
export function trivialRoute(base, probe, { seconds, connections, pairs }) {
  const url = `${base}${TRIVIAL}`;
  const WRK = { seconds, connections };
  const once = async () => (await probe.call("GET", TRIVIAL)).ms;
  const paired = (target, headers, extra = {}) => {
    const runs = [];
    for (let i = 0; i < pairs; i++) {
      const t = wrk(url, probe.auth, WRK);
      const r = wrk(target, headers, { ...WRK, ...extra });
      runs.push({ r, t, rps: r.rps / t.rps, p50: r.p50 / t.p50, p99: r.p99 / t.p99 });
    }
    return {
      rps: median(runs.map((x) => x.rps)),
      p50: median(runs.map((x) => x.p50)),
      p99: median(runs.map((x) => x.p99)),
      trivialRps: median(runs.map((x) => x.t.rps)),
      trivialP50: median(runs.map((x) => x.t.p50)),
      trivialP99: median(runs.map((x) => x.t.p99)),
      run: runs.map((x) => x.r).sort((a, b) => a.rps - b.rps)[Math.floor(pairs / 2)],
      non2xx: runs.reduce((n, x) => n + x.r.non2xx, 0),
    };
  };
  return { url, once, paired };
}
