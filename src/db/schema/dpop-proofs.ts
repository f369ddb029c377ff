import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * DPoP proofs already accepted for a user (RFC 9449 section 11.1), kept only while the proof could
 * still be accepted. `proof_id` is a digest of the key's thumbprint and the proof's `jti`, so a row
 * has a fixed size whatever the client sent.
 */
export const dpopProofs = sqliteTable(
  "dpop_proofs",
  {
    userId: text("user_id").notNull(),
    proofId: text("proof_id").notNull(),
    /** Epoch seconds after which the proof fails its own time checks; the row can go then. */
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.proofId] })],
);
