/**
 * Which D1 database holds a user (docs/decisions/scale.md, "Scale: shards, a directory, many databases"). Pure and synchronous: no I/O, no clock, so every
 * isolate and every tool (the move command, the bench) computes the same answer for the same
 * shard list.
 *
 * Rendezvous (highest random weight) hashing: each shard scores the user, the highest score wins.
 * Adding a shard changes the winner only for the users the new shard now outscores (about 1/n of
 * them), and removing one moves only its own users; a modulo would reshuffle nearly everyone.
 */

/** The binding of shard i: `DB_0 … DB_{n-1}`. */
const SHARD_BINDING = /^DB_(0|[1-9][0-9]*)$/;

/** FNV-1a over the UTF-16 code units, 32 bits. Cheap and well spread once finalised below. */
function fnv1a(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * MurmurHash3's 32-bit finaliser: FNV alone leaves ids that differ in their last characters with
 * correlated high bits, which would tilt a comparison of scores.
 */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const seeds = new Map<string, number>();
const seedOf = (shard: string) =>
  seeds.get(shard) ?? (seeds.set(shard, fmix32(fnv1a(shard))), seeds.get(shard)!);

/**
 * The weight of one (shard, user) pair. The user id is hashed once and mixed with each shard's
 * seed through the finaliser (a bijection), so each shard draws its own score at the cost of a
 * few multiplications per shard, not a pass over the id per shard.
 */
const score = (user: number, shard: string) => fmix32(user ^ seedOf(shard));

/** The shard a user belongs on by hashing alone; ties go to the lower name. */
export function pickShard(userId: string, shards: readonly string[]): string {
  if (shards.length === 0) throw new Error("No D1 shard is configured");
  const user = fnv1a(userId);
  let best = shards[0]!;
  let bestScore = score(user, best);
  for (let i = 1; i < shards.length; i++) {
    const name = shards[i]!;
    const s = score(user, name);
    if (s > bestScore || (s === bestScore && name < best)) {
      best = name;
      bestScore = s;
    }
  }
  return best;
}

const isD1 = (v: unknown): v is D1Database =>
  typeof v === "object" && v !== null && typeof (v as D1Database).prepare === "function";

/**
 * The shard bindings present in the environment, in index order. They must run `DB_0` to
 * `DB_{n-1}` without a gap: a missing middle binding means a misconfigured deployment, and routing
 * around it would put users on the wrong database, so it fails closed. A deployment with only the
 * original `DB` binding (DECISIONS D12) is one shard, DB_0, served by that binding (bindingOf), so
 * the user → shard map reads the same whichever name the single database is bound under.
 */
export function shardBindings(env: Record<string, unknown>): string[] {
  // Asked for every statement: the answer is kept per environment object (the bindings of an
  // isolate do not change while it lives).
  const known = listed.get(env);
  if (known) return known;
  const names = listShards(env);
  listed.set(env, names);
  return names;
}

const listed = new WeakMap<object, string[]>();

function listShards(env: Record<string, unknown>): string[] {
  const found = Object.keys(env)
    .filter((k) => SHARD_BINDING.test(k) && isD1(env[k]))
    .map((k) => Number(k.slice(3)))
    .sort((a, b) => a - b);
  if (found.length === 0) {
    if (isD1(env.DB)) return ["DB_0"];
    throw new Error("No D1 shard binding (DB_0 … DB_{n-1}) is configured");
  }
  found.forEach((n, i) => {
    if (n !== i)
      throw new Error(
        `D1 shard bindings must be DB_0 … DB_${found.length - 1} without a gap; DB_${i} is missing`,
      );
  });
  return found.map((n) => `DB_${n}`);
}

/** The directory database (cross-user records and the user → shard map); DB_0 when not bound apart. */
export function directoryBinding(env: Record<string, unknown>): string {
  if (isD1(env.DIRECTORY)) return "DIRECTORY";
  shardBindings(env);
  return "DB_0";
}

export function bindingOf(env: Record<string, unknown>, name: string): D1Database {
  const d1 = env[name] ?? (name === "DB_0" || name === "DIRECTORY" ? env.DB : undefined);
  if (!isD1(d1)) throw new Error(`D1 binding ${name} is not configured`);
  return d1;
}
