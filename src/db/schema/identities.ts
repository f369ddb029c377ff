import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const identities = sqliteTable(
  "identities",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    displayName: text("display_name"),
    firstName: text("first_name"),
    lastName: text("last_name"),
    username: text("username"),
    emailAlias: text("email_alias"),
    phoneNumber: text("phone_number"),
    dateOfBirth: text("date_of_birth"),
    gender: text("gender"),
    addressLine1: text("address_line1"),
    addressCity: text("address_city"),
    addressState: text("address_state"),
    addressZip: text("address_zip"),
    addressCountry: text("address_country"),
    status: text("status", { enum: ["active", "paused", "nuked"] }).notNull(),
    label: text("label"),
    notes: text("notes"),
    usedForService: text("used_for_service"),
    /** Which alias provider issued email_alias, and its id there, to disable it at nuke time. */
    aliasProvider: text("alias_provider"),
    aliasId: text("alias_id"),
    /** The user's alias-provider API key, sealed (D10); cleared when the identity is nuked. */
    aliasKeySealed: text("alias_key_sealed"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("identities_user_created").on(t.userId, t.createdAt)],
);

export type IdentityRow = typeof identities.$inferSelect;
export type NewIdentityRow = typeof identities.$inferInsert;
