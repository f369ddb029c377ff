import type { Db } from "../../db/client";
import { advanceClock, clockToIso } from "../../db/change-clock";
import { announceClocks, type LiveSyncBindings } from "../../db/clock-announce";
import type { EntryIdClaims } from "../../db/entry-ids";
import type { NewPasswordRow, PasswordRow } from "../../db/schema";
import { ErrorCode, zodIssues } from "../../lib/errors";
import {
  bulkInsertStatement,
  CURRENT_ENCRYPTION_VERSION,
  entryPatch,
  newEntryRow,
  replaceHostsStatements,
  type VaultLimits,
} from "../passwords";
import { toChange } from "./changes";
import * as repo from "./repo";
import { type CreateData, Mutation, type MutationResult, type UpdateData } from "./schema";
import { BatchSlots, changesAt } from "./slots";

/**
 * A sync push in four steps: `validate` each mutation, `plan` one D1 batch from the entries as
 * read (each mutation decided against its entry, its write guarded on that version), `commit` the
 * batch (and announce the clock it advanced), `answer` each mutation from what its statement did.
 */
export type PushDeps = {
  db: Db;
  limits: VaultLimits;
  claims: EntryIdClaims;
  /** The live-sync hubs a committed push tells (clock-announce.ts). */
  hubs: LiveSyncBindings;
};

/** `prev`: the version an update was decided on, to tell a lost race from the byte quota. */
type Write = { index: number; id: string; slot: number; entry?: PasswordRow; prev?: PasswordRow };

/** New entries go in as one statement, in the slot kept where the first create was decided. */
type Bulk = { slot: number; rows: { index: number; row: PasswordRow }[] };

type Plan = {
  statements: unknown[];
  /** The slot of the batch's `advanceClock` (first) and of its closing clock read (last). */
  clockSlot: number;
  readSlot: number;
  bulk: Bulk | null;
  writes: Write[];
};

const failed = (id: string, code: ErrorCode, error: string): MutationResult => ({
  id,
  status: "failed",
  code,
  error,
});

export async function push(deps: PushDeps, userId: string, raw: { id: string }[]) {
  const now = Date.now();
  const { parsed, results } = validate(raw);
  const plan = await planBatch(deps, userId, parsed, results, now);
  const { out, clock } = await commit(deps, plan);
  await answer(deps, userId, plan, out, results);
  return { results, serverTimestamp: clockToIso(clock ?? now) };
}

/** Each mutation parsed, or null with its failure in `results` (every other one: failed until decided). */
function validate(raw: { id: string }[]) {
  const results: MutationResult[] = raw.map((m) => ({ id: m.id, status: "failed" }));
  const parsed: (Mutation | null)[] = raw.map((m, i) => {
    const r = Mutation.safeParse(m);
    if (r.success) return r.data;
    results[i] = {
      id: m.id,
      status: "failed",
      code: ErrorCode.VALIDATION_ERROR,
      error: "Invalid mutation",
      details: zodIssues(r.error),
    };
    return null;
  });
  return { parsed, results };
}

/**
 * Reads the entries the mutations name, then decides each in order against the entry as the ones
 * before it left it: a mutation with nothing to write is answered here, one that writes gets its
 * statement and slot.
 */
async function planBatch(
  { db, limits, claims }: PushDeps,
  userId: string,
  parsed: (Mutation | null)[],
  results: MutationResult[],
  now: number,
): Promise<Plan> {
  const nowIso = new Date(now).toISOString();
  const valid = parsed.filter((m): m is Mutation => m !== null);
  const ids = [...new Set(valid.map((m) => m.id))];
  // A create's id is claimed across shards while its shard is read; a retried create of one's
  // own entry finds its own claim and goes on as before.
  const [{ mine, foreign, liveCount }, claimed] = await Promise.all([
    repo.lookup(db, userId, ids),
    claims.claim(
      userId,
      valid.filter((m) => m.action === "create").map((m) => m.id),
    ),
  ]);
  for (const id of claimed.taken) foreign.add(id);
  const current = new Map(mine.map((r) => [r.id, r]));
  // New entries go in as one statement, guarded once on the entry limit; creates beyond the room
  // left at read time fail at once (the guard still holds if the vault filled up meanwhile).
  const room = limits.entries - liveCount;
  const bulkRows: Bulk["rows"] = [];
  let bulkSlot = -1;
  let restores = 0;

  const slots = new BatchSlots<unknown>();
  const clockSlot = slots.add(advanceClock(db, userId, now));
  const writes: Write[] = [];
  const fail = (i: number, id: string, code: ErrorCode, error: string) =>
    (results[i] = failed(id, code, error));

  parsed.forEach((m, i) => {
    if (!m) return;
    const prev = current.get(m.id);
    const clientMs = Date.parse(m.clientUpdatedAt);
    // A client clock running ahead must not make its write unbeatable.
    const stamp = new Date(Math.min(clientMs, now)).toISOString();
    if (!prev) {
      if (m.action !== "create")
        return fail(i, m.id, ErrorCode.NOT_FOUND, "Password entry not found");
      if (foreign.has(m.id))
        return fail(
          i,
          m.id,
          ErrorCode.CONFLICT,
          "This id is not available; create the entry under a new id",
        );
      if (bulkRows.length >= room)
        return fail(i, m.id, ErrorCode.SERVICE_UNAVAILABLE, "Password limit exceeded");
      const row = newEntryRow(userId, m.id, m.data, nowIso, stamp);
      current.set(m.id, row);
      if (bulkSlot < 0) bulkSlot = slots.reserve();
      bulkRows.push({ index: i, row });
      return;
    }
    if (
      m.action === "create" &&
      prev.encryptedData === m.data.encrypted_data &&
      prev.wrappedItemKey === m.data.wrapped_item_key &&
      prev.deletedAt === null
    ) {
      // A retried create whose first answer was lost: same envelope, nothing to do.
      results[i] = { id: m.id, status: "applied", serverEntry: toChange(prev) };
      return;
    }
    if (m.action === "delete" && prev.deletedAt !== null) {
      results[i] = { id: m.id, status: "applied" };
      return;
    }
    // Last write wins; the server wins a tie (spec, "Password sync" rule 3).
    if (Date.parse(prev.updatedAt) >= clientMs) {
      results[i] = { id: m.id, status: "conflict_server_wins", serverEntry: toChange(prev) };
      return;
    }
    if (m.action === "delete") {
      const slot = slots.add(repo.tombstoneStatement(db, userId, prev, nowIso, stamp));
      writes.push({ index: i, id: m.id, slot });
      current.set(m.id, { ...prev, deletedAt: nowIso, updatedAt: stamp });
      return;
    }
    // An update of a deleted entry brings it back, so it takes a place under the entry limit.
    if (prev.deletedAt !== null) {
      if (bulkRows.length + restores >= room)
        return fail(i, m.id, ErrorCode.SERVICE_UNAVAILABLE, "Password limit exceeded");
      restores++;
    }
    const set = changeSet(m.data, prev, stamp);
    if ("error" in set) {
      results[i] = {
        id: m.id,
        status: "failed",
        code: ErrorCode.VALIDATION_ERROR,
        error: set.error,
        details: set.details,
      };
      return;
    }
    const slot = slots.add(repo.updateStatement(db, userId, prev, set, limits.bytes));
    const next = { ...prev, ...set } as PasswordRow;
    writes.push({
      index: i,
      id: m.id,
      slot,
      entry: m.action === "create" ? next : undefined,
      prev,
    });
    current.set(m.id, next);
  });

  if (bulkSlot >= 0)
    slots.fill(
      bulkSlot,
      bulkInsertStatement(
        db,
        userId,
        bulkRows.map((b) => b.row),
        limits,
        { skipTakenIds: true },
      ),
    );
  // Extra host hashes after every entry write: only entries this batch wrote take them (the last
  // mutation of an id that sends them wins), in the same transaction as the entry.
  const hosts = new Map<string, string[]>();
  for (const m of parsed)
    if (m && m.action !== "delete" && m.data.host_hashes) hosts.set(m.id, m.data.host_hashes);
  if (hosts.size > 0)
    slots.addAll([
      ...replaceHostsStatements(
        db,
        userId,
        [...hosts].map(([id, hashes]) => ({ id, hashes })),
      ),
    ]);
  const readSlot = slots.add(repo.readClock(db, userId));
  return {
    statements: slots.statements(),
    clockSlot,
    readSlot,
    bulk: bulkSlot >= 0 ? { slot: bulkSlot, rows: bulkRows } : null,
    writes,
  };
}

/** Runs the plan as one D1 batch (one transaction); returns D1's answer and the clock it left. */
async function commit({ db, hubs }: PushDeps, plan: Plan) {
  const out = (await db.batch(
    plan.statements as unknown as Parameters<Db["batch"]>[0],
  )) as unknown as unknown[];
  // A push that changed no row (retries, conflicts, refusals) still moves the clock, but tells no
  // one: another device would pull and find nothing.
  const changed =
    (plan.bulk !== null && changesAt(out, plan.bulk.slot) > 0) ||
    plan.writes.some((w) => changesAt(out, w.slot) > 0);
  if (changed) announceClocks(hubs, out[plan.clockSlot]);
  const clock = (out[plan.readSlot] as { clock: number }[])[0]?.clock;
  return { out, clock };
}

/** Settles each write from what its statement changed; a write that changed nothing is read again. */
async function answer(
  { db }: PushDeps,
  userId: string,
  plan: Plan,
  out: unknown[],
  results: MutationResult[],
) {
  const fail = (i: number, id: string, code: ErrorCode, error: string) =>
    (results[i] = failed(id, code, error));
  if (plan.bulk) {
    const { rows } = plan.bulk;
    const inserted = changesAt(out, plan.bulk.slot);
    if (inserted === rows.length) {
      for (const b of rows)
        results[b.index] = { id: b.row.id, status: "applied", serverEntry: toChange(b.row) };
    } else {
      // Someone took an id (or filled the vault) between the read and the write: check row by row.
      const stored = new Map(
        (
          await repo.lookup(
            db,
            userId,
            rows.map((b) => b.row.id),
          )
        ).mine.map((r) => [r.id, r]),
      );
      for (const b of rows) {
        const row = stored.get(b.row.id);
        if (row && row.encryptedData === b.row.encryptedData)
          results[b.index] = { id: b.row.id, status: "applied", serverEntry: toChange(row) };
        else if (row)
          results[b.index] = {
            id: b.row.id,
            status: "conflict_server_wins",
            serverEntry: toChange(row),
          };
        else if (inserted === 0)
          fail(b.index, b.row.id, ErrorCode.SERVICE_UNAVAILABLE, "Password limit exceeded");
        else
          fail(
            b.index,
            b.row.id,
            ErrorCode.CONFLICT,
            "This id is not available; create the entry under a new id",
          );
      }
    }
  }
  const lost: Write[] = [];
  for (const w of plan.writes) {
    if (changesAt(out, w.slot) > 0)
      results[w.index] = {
        id: w.id,
        status: "applied",
        ...(w.entry ? { serverEntry: toChange(w.entry) } : {}),
      };
    else lost.push(w);
  }
  if (lost.length === 0) return;
  // A concurrent writer got there first: report what is stored now.
  const fresh = new Map(
    (
      await repo.findMany(
        db,
        userId,
        lost.map((w) => w.id),
      )
    ).map((r) => [r.id, r]),
  );
  for (const w of lost) {
    const row = fresh.get(w.id);
    // Still the version it was decided on: nobody else wrote, the byte quota refused it.
    if (row && w.prev && row.updatedAt === w.prev.updatedAt && row.deletedAt === w.prev.deletedAt)
      fail(w.index, w.id, ErrorCode.SERVICE_UNAVAILABLE, "Vault storage quota exceeded");
    else if (row)
      results[w.index] = { id: w.id, status: "conflict_server_wins", serverEntry: toChange(row) };
    else fail(w.index, w.id, ErrorCode.NOT_FOUND, "Password entry not found");
  }
}

/**
 * The columns an update (or a create over an existing id) writes. The result is always a live V3
 * entry: a deleted one comes back (its later edit wins), and a placeholder or legacy entry needs a
 * complete envelope, after which its plaintext username goes (D14).
 */
function changeSet(
  d: UpdateData | CreateData,
  prev: PasswordRow,
  stamp: string,
): Partial<NewPasswordRow> | { error: string; details: { field: string; message: string }[] } {
  // A purged entry has no ciphertext left: only a complete envelope can bring it back.
  if (
    (prev.encryptionVersion !== CURRENT_ENCRYPTION_VERSION || prev.purgedAt !== null) &&
    (!d.wrapped_item_key || !d.encrypted_data)
  ) {
    return {
      error:
        "Sync push accepts V3 entries only: send wrapped_item_key and encrypted_data to upgrade this entry",
      details: [
        { field: "data.encrypted_data", message: "required for an entry that is not yet V3" },
      ],
    };
  }
  return entryPatch(d, prev, {
    updatedAt: stamp,
    deletedAt: null,
    purgedAt: null,
    encryptionVersion: CURRENT_ENCRYPTION_VERSION,
    username: null,
  });
}
