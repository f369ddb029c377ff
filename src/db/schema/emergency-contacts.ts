import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

export type EmergencyStatus =
  | "pending_invite"
  | "active"
  | "access_requested"
  | "access_granted"
  | "access_denied"
  | "access_expired"
  | "revoked";

export const emergencyContacts = sqliteTable(
  "emergency_contacts",
  {
    id: text("id").primaryKey(),
    ownerId: text("owner_id").notNull(),
    /** The owner's address at invite time, for mail to the owner; not part of the listed record. */
    ownerEmail: text("owner_email"),
    contactEmail: text("contact_email").notNull(),
    contactUserId: text("contact_user_id"),
    status: text("status").$type<EmergencyStatus>().notNull(),
    waitHours: integer("wait_hours").notNull(),
    /** SHA-256 of the invitation token; the token itself only travels in the invitation email. */
    inviteTokenHash: text("invite_token_hash").notNull().unique(),
    inviteExpiresAt: text("invite_expires_at").notNull(),
    wrappedAccessKey: text("wrapped_access_key").notNull(),
    inviteSalt: text("invite_salt").notNull(),
    requestedAt: text("requested_at"),
    grantAt: text("grant_at"),
    grantedAt: text("granted_at"),
    expiresAt: text("expires_at"),
    /** When the owner was told that the contact read the vault (DECISIONS D15: once per window). */
    vaultReadNotifiedAt: text("vault_read_notified_at"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    index("emergency_owner").on(t.ownerId, t.createdAt),
    index("emergency_contact_user").on(t.contactUserId),
    index("emergency_invitee").on(t.contactEmail, t.status),
  ],
);

export type EmergencyContactRow = typeof emergencyContacts.$inferSelect;
