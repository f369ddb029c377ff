-- Secure links: a secret or a file handed to anyone by `<origin>/l/<id>#<key>`. The key lives only
-- in the fragment; a row holds the options, the counters and where the ciphertext lies in R2,
-- never anything that opens it. Rows live on the owner's shard.
CREATE TABLE `secure_links` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_id` text NOT NULL,
	`kind` text NOT NULL,
	`size` integer NOT NULL,
	`r2_key` text NOT NULL,
	`encrypted_label` text,
	`sender_email` text,
	`max_views` integer NOT NULL,
	`views_used` integer DEFAULT 0 NOT NULL,
	`expires_at` text NOT NULL,
	`passphrase_salt` text,
	`passphrase_verifier_hash` text,
	`failed_attempts` integer DEFAULT 0 NOT NULL,
	`revoked_at` text,
	`last_opened_at` text,
	`content_purged_at` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `secure_links_owner` ON `secure_links` (`owner_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `secure_links_expiry` ON `secure_links` (`expires_at`);--> statement-breakpoint
-- The directory's pointer: an opener names a link by its id alone, which says nothing of whose
-- shard holds it, so the owner is looked up here first (as for live-session shares).
CREATE TABLE `secure_link_owners` (
	`link_id` text PRIMARY KEY NOT NULL,
	`owner_id` text NOT NULL,
	`expires_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `secure_link_owners_expiry` ON `secure_link_owners` (`expires_at`);
