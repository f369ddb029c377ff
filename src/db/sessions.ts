/**
 * D1's Sessions API (read replication) for one request: every D1 binding the request reaches is
 * replaced by a session on it, so its reads may be served by a replica, never one older than the
 * bookmark the client last saw for that database (read-your-writes across requests, docs/decisions/scale.md, "Scale: shards, a directory, many databases").
 * Bookmarks are per database, so the client carries one per binding name (src/kernel/bookmarks.ts).
 */

type SessionCapable = D1Database & { withSession?: D1Database["withSession"] };

const isD1 = (v: unknown): v is SessionCapable =>
  typeof v === "object" &&
  v !== null &&
  typeof (v as D1Database).prepare === "function" &&
  typeof (v as D1Database).batch === "function";

export interface RequestSessions {
  /** The request's environment, every D1 binding replaced by a session on it. */
  env: Record<string, unknown>;
  /** The bookmark of each database this request reached, after its last query. */
  bookmarks(): Map<string, string>;
}

/**
 * Opens sessions lazily, one per binding the request reaches. A binding the client holds a
 * bookmark for starts from it. Without one, a read-only request (`primary` false) may start on any
 * replica; a request that writes starts on the primary, and so does every use of `DIRECTORY`,
 * whose user → shard map must be current for a write to land on the right shard during a move.
 */
export function openSessions(
  env: Record<string, unknown>,
  given: Map<string, string>,
  primary: boolean,
  /** Shown each session as it opens (the cost counters watch what it sends). */
  opened?: (session: D1DatabaseSession) => void,
): RequestSessions {
  const sessions = new Map<string, D1DatabaseSession>();
  const wrapped = new Map<string, D1Database>();
  const wrap = (name: string, d1: SessionCapable): D1Database => {
    let w = wrapped.get(name);
    if (w) return w;
    if (typeof d1.withSession !== "function") return d1;
    const constraint =
      given.get(name) ??
      (primary || name === "DIRECTORY" ? "first-primary" : "first-unconstrained");
    const session = d1.withSession(constraint);
    sessions.set(name, session);
    opened?.(session);
    // prepare and batch go through the session; exec and dump (migrations, tooling) stay on the
    // binding, which the session API does not offer.
    w = new Proxy(d1, {
      get(target, key) {
        if (key === "prepare") return (sql: string) => session.prepare(sql);
        if (key === "batch")
          return (statements: D1PreparedStatement[]) => session.batch(statements);
        if (key === "withSession") return undefined;
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    wrapped.set(name, w);
    return w;
  };
  return {
    env: new Proxy(env, {
      get(target, key) {
        const value = Reflect.get(target, key);
        return typeof key === "string" && isD1(value) ? wrap(key, value) : value;
      },
    }),
    bookmarks() {
      const out = new Map<string, string>();
      for (const [name, session] of sessions) {
        const bookmark = session.getBookmark();
        if (bookmark) out.set(name, bookmark);
      }
      return out;
    },
  };
}
