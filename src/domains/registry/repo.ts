import { and, asc, eq, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import {
  registryOverrides,
  type NewRegistryOverrideRow,
  type RegistryOverrideRow,
} from "../../db/schema";

/** The registry is global configuration, not a user's records: no owner column to name. */

export async function listOverrides(
  db: Db,
  f: { search?: string; category?: string; activeOnly: boolean },
): Promise<RegistryOverrideRow[]> {
  const conds: SQL[] = [];
  if (f.activeOnly) conds.push(eq(registryOverrides.isActive, true));
  if (f.category) conds.push(eq(registryOverrides.category, f.category));
  if (f.search) {
    const s = f.search.toLowerCase();
    conds.push(
      sql`(instr(lower(${registryOverrides.domain}), ${s}) > 0 OR instr(lower(${registryOverrides.name}), ${s}) > 0)`,
    );
  }
  return db
    .select()
    .from(registryOverrides)
    .where(conds.length ? and(...conds) : undefined)
    .orderBy(asc(registryOverrides.domain))
    .all();
}

export async function activeOverrides(db: Db): Promise<RegistryOverrideRow[]> {
  return db.select().from(registryOverrides).where(eq(registryOverrides.isActive, true)).all();
}

export async function findOverride(
  db: Db,
  domain: string,
): Promise<RegistryOverrideRow | undefined> {
  return db.select().from(registryOverrides).where(eq(registryOverrides.domain, domain)).get();
}

/**
 * Inserts, or replaces an inactive override with the new data, in one statement: an active one is
 * left alone and the caller answers 409, so two concurrent creates cannot both win.
 */
export async function insertOrReactivate(
  db: Db,
  row: NewRegistryOverrideRow,
): Promise<RegistryOverrideRow | undefined> {
  const { domain: _d, createdAt: _c, ...replace } = row;
  return db
    .insert(registryOverrides)
    .values(row)
    .onConflictDoUpdate({
      target: registryOverrides.domain,
      set: { ...replace, isActive: true },
      setWhere: eq(registryOverrides.isActive, false),
    })
    .returning()
    .get();
}

export async function updateOverride(
  db: Db,
  domain: string,
  set: Partial<NewRegistryOverrideRow>,
): Promise<RegistryOverrideRow | undefined> {
  return db
    .update(registryOverrides)
    .set(set)
    .where(eq(registryOverrides.domain, domain))
    .returning()
    .get();
}

export async function deactivateOverride(
  db: Db,
  domain: string,
  by: string,
  at: string,
): Promise<RegistryOverrideRow | undefined> {
  return db
    .update(registryOverrides)
    .set({ isActive: false, updatedBy: by, updatedAt: at })
    .where(and(eq(registryOverrides.domain, domain), eq(registryOverrides.isActive, true)))
    .returning()
    .get();
}
