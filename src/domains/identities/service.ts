import type { Db } from "../../db/client";
import type { IdentityRow, NewIdentityRow } from "../../db/schema";
import { hostnameOf } from "../../kernel/hostname";
import type { PageParams } from "../../kernel/pagination";
import type { SealedColumn } from "../../db/reseal";
import { randomId, seal, unseal, type DataKeys } from "../../lib/crypto";
import { AppError, ErrorCode, notFound, validationError } from "../../lib/errors";
import {
  createAlias,
  disableAlias,
  type AliasProviderName,
  type ProviderUrls,
} from "./alias-providers";
import { generatePersona } from "./persona";
import * as repo from "./repo";
import type { CreateIdentityInput, IdentityView, UpdateIdentityInput } from "./schema";

export function toIdentity(row: IdentityRow): IdentityView {
  return {
    id: row.id,
    user_id: row.userId,
    display_name: row.displayName,
    first_name: row.firstName,
    last_name: row.lastName,
    username: row.username,
    email_alias: row.emailAlias,
    phone_number: row.phoneNumber,
    date_of_birth: row.dateOfBirth,
    gender: row.gender,
    address_line1: row.addressLine1,
    address_city: row.addressCity,
    address_state: row.addressState,
    address_zip: row.addressZip,
    address_country: row.addressCountry,
    status: row.status,
    label: row.label,
    notes: row.notes,
    used_for_service: row.usedForService,
    created_at: row.createdAt,
  };
}

/** Everything a nuke destroys: the persona, the alias and its key, and the user's free-text notes. */
const DESTROYED: Partial<NewIdentityRow> = {
  displayName: null,
  firstName: null,
  lastName: null,
  username: null,
  emailAlias: null,
  phoneNumber: null,
  dateOfBirth: null,
  gender: null,
  addressLine1: null,
  addressCity: null,
  addressState: null,
  addressZip: null,
  addressCountry: null,
  notes: null,
  aliasId: null,
  aliasKeySealed: null,
};

const keyAad = (userId: string, id: string) => `identity-alias-key:${userId}:${id}`;

export class IdentityService {
  constructor(
    private readonly db: Db,
    private readonly providers: ProviderUrls,
    private readonly dataKey: DataKeys,
    private readonly maxBytes: number,
  ) {}

  async list(userId: string, status: IdentityRow["status"] | undefined, page: PageParams) {
    const [rows, stats] = await Promise.all([
      repo.list(this.db, userId, status, page),
      repo.stats(this.db, userId),
    ]);
    return { identities: rows.items.map(toIdentity), stats, next_cursor: rows.next_cursor };
  }

  /**
   * The persona is built in memory and the alias requested first; only when both exist is the
   * record written, so a provider failure leaves nothing behind. If the write itself fails, the
   * alias just created is switched off again.
   */
  async create(userId: string, input: CreateIdentityInput): Promise<IdentityView> {
    const wantsEmail = input.generateEmail ?? input.emailApiKey !== undefined;
    if (wantsEmail && !input.emailApiKey) {
      throw validationError("generateEmail needs the alias provider's API key", [
        { field: "emailApiKey", message: "required when generateEmail is true" },
      ]);
    }
    const persona = generatePersona(input.country, input.gender, input.generatePhone ?? true);
    const id = randomId();
    const provider: AliasProviderName = input.emailProvider;
    const alias = wantsEmail
      ? await createAlias(provider, this.providers, input.emailApiKey as string, {
          note: input.label ?? input.service,
          hostname: hostnameOf(input.service) ?? undefined,
        })
      : null;
    const now = new Date().toISOString();
    const row: NewIdentityRow & { userId: string } = {
      id,
      userId,
      ...persona,
      emailAlias: alias?.email ?? null,
      status: "active",
      label: input.label ?? null,
      notes: input.notes ?? null,
      usedForService: input.service ?? null,
      aliasProvider: alias ? provider : null,
      aliasId: alias?.id ?? null,
      aliasKeySealed: alias
        ? await seal(this.dataKey, input.emailApiKey as string, keyAad(userId, id))
        : null,
      createdAt: now,
      updatedAt: now,
    };
    let stored: boolean;
    try {
      stored = await repo.insertWithinQuota(this.db, row, this.maxBytes);
    } catch (err) {
      if (alias)
        await disableAlias(provider, this.providers, input.emailApiKey as string, alias.id).catch(
          () => undefined,
        );
      throw err;
    }
    if (!stored) {
      if (alias)
        await disableAlias(provider, this.providers, input.emailApiKey as string, alias.id).catch(
          () => undefined,
        );
      throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, "Identity storage quota exceeded");
    }
    return toIdentity(row as IdentityRow);
  }

  async update(userId: string, id: string, input: UpdateIdentityInput): Promise<IdentityView> {
    const current = await repo.find(this.db, userId, id);
    if (!current) throw notFound("Identity");
    if (current.status === "nuked")
      throw new AppError(ErrorCode.CONFLICT, "A nuked identity cannot be changed");
    const service = input.used_for_service !== undefined ? input.used_for_service : input.service;
    const hasMetadata =
      input.label !== undefined || input.notes !== undefined || service !== undefined;
    if (input.status === "nuked") {
      if (hasMetadata)
        throw validationError("Nuking takes no other fields", [
          { field: "status", message: "nuked cannot be combined with metadata" },
        ]);
      return this.nuke(userId, current);
    }
    const set: Partial<NewIdentityRow> = { updatedAt: new Date().toISOString() };
    if (input.status) set.status = input.status;
    if (input.label !== undefined) set.label = input.label;
    if (input.notes !== undefined) set.notes = input.notes;
    if (service !== undefined) set.usedForService = service;
    const row = await repo.updateUnlessNuked(this.db, userId, id, set, this.maxBytes);
    if (!row) {
      if ((await repo.find(this.db, userId, id))?.status !== "nuked")
        throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, "Identity storage quota exceeded");
      throw new AppError(ErrorCode.CONFLICT, "A nuked identity cannot be changed");
    }
    return toIdentity(row);
  }

  /** Irreversible: the alias is switched off at its provider first, then every personal field is cleared. */
  private async nuke(userId: string, current: IdentityRow): Promise<IdentityView> {
    if (current.aliasProvider && current.aliasId && current.aliasKeySealed) {
      const key = await unseal(this.dataKey, current.aliasKeySealed, keyAad(userId, current.id));
      await disableAlias(
        current.aliasProvider as AliasProviderName,
        this.providers,
        key,
        current.aliasId,
      );
    }
    const row = await repo.updateUnlessNuked(
      this.db,
      userId,
      current.id,
      { ...DESTROYED, status: "nuked", updatedAt: new Date().toISOString() },
      this.maxBytes,
    );
    if (!row) throw new AppError(ErrorCode.CONFLICT, "The identity is already nuked");
    return toIdentity(row);
  }

  async remove(userId: string, id: string): Promise<void> {
    if (!(await repo.remove(this.db, userId, id))) throw notFound("Identity");
  }
}

/** Alias-provider API keys of identities for the re-seal pass (D10). */
export const identityAliasKeysColumn: SealedColumn = {
  table: "identities",
  key: "id",
  column: "alias_key_sealed",
  uses: ["user_id"],
  aad: (r) => keyAad(r.user_id, r.id),
};
