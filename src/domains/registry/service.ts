import type { Db } from "../../db/client";
import { AppError, ErrorCode, notFound } from "../../lib/errors";
import { bodyToColumns, createToColumns, toView } from "./mapping";
import * as repo from "./repo";
import { refreshRegistryCache } from "./resolve";
import type { CreateOverrideBody, UpdateOverrideBody } from "./schema";
import { errorName, logJson } from "../../lib/log";

export class RegistryAdminService {
  constructor(private readonly db: Db) {}

  async list(f: { search?: string; category?: string; activeOnly: boolean }) {
    const overrides = (await repo.listOverrides(this.db, f)).map(toView);
    return { overrides, count: overrides.length };
  }

  async create(adminId: string, body: CreateOverrideBody) {
    const now = new Date().toISOString();
    let row;
    try {
      row = await repo.insertOrReactivate(this.db, {
        ...createToColumns(body),
        domain: body.domain,
        isActive: true,
        createdBy: adminId,
        updatedBy: adminId,
        createdAt: now,
        updatedAt: now,
      });
    } catch (err) {
      logJson("error", "registry override insert failed", { error: errorName(err) });
      throw new AppError(ErrorCode.INTERNAL_ERROR, "Could not save the override");
    }
    if (!row)
      throw new AppError(ErrorCode.CONFLICT, "An active override for this domain already exists");
    await refreshRegistryCache(this.db);
    return {
      domain: row.domain,
      name: row.name,
      is_active: row.isActive,
      created_by: row.createdBy,
      created_at: row.createdAt,
    };
  }

  async update(adminId: string, domain: string, body: UpdateOverrideBody) {
    const row = await repo.updateOverride(this.db, domain, {
      ...bodyToColumns(body),
      updatedBy: adminId,
      updatedAt: new Date().toISOString(),
    });
    if (!row) throw notFound("Override");
    await refreshRegistryCache(this.db);
    return toView(row);
  }

  async remove(adminId: string, domain: string) {
    const row = await repo.deactivateOverride(this.db, domain, adminId, new Date().toISOString());
    if (!row) throw notFound("Override");
    await refreshRegistryCache(this.db);
    return toView(row);
  }
}
