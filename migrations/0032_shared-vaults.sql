-- Shared vaults (docs/crypto.md "Shared vaults", docs/scale.md "Shared vaults across shards").
-- Every database gets every table; which database holds a row is the rule in docs/scale.md: the
-- vault, its members, invitations and the user-facing key version live in the directory (a member
-- on any shard finds them); its entries, key versions (the fence), rotation staging and activity
-- log live on the vault's home shard, the shard its id hashes to like a user's.
CREATE TABLE `vaults` (
	`id` text PRIMARY KEY NOT NULL,
	-- The name sealed by a member's client under the vault key: the server never reads it.
	`sealed_name` text NOT NULL,
	`key_version` integer DEFAULT 1 NOT NULL,
	`created_by` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `vault_members` (
	`vault_id` text NOT NULL,
	`user_id` text NOT NULL,
	`email` text,
	`role` text NOT NULL,
	-- The member's copy of the vault key (person-wrap layout) and the version it opens; null until an
	-- owner or manager device wraps it after the member accepted.
	`key_version` integer,
	`wrapped_key` text,
	-- A copy for the version a rotation in progress makes, promoted when the rotation commits.
	`next_key_version` integer,
	`next_wrapped_key` text,
	`invited_by` text,
	`joined_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`vault_id`, `user_id`)
);
--> statement-breakpoint
CREATE INDEX `vault_members_user` ON `vault_members` (`user_id`);--> statement-breakpoint
CREATE TABLE `vault_invitations` (
	`id` text PRIMARY KEY NOT NULL,
	`vault_id` text NOT NULL,
	`email` text NOT NULL,
	`role` text NOT NULL,
	`invited_by` text NOT NULL,
	`inviter_email` text,
	`expires_at` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `vault_invitations_email` ON `vault_invitations` (`email`,`expires_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `vault_invitations_vault_email` ON `vault_invitations` (`vault_id`,`email`);--> statement-breakpoint
-- The home shard's record of each key version: the one `current` row is the fence every entry
-- write of the vault checks in its own statement.
CREATE TABLE `vault_key_versions` (
	`vault_id` text NOT NULL,
	`version` integer NOT NULL,
	`state` text NOT NULL,
	`started_by` text NOT NULL,
	`created_at` text NOT NULL,
	`committed_at` text,
	PRIMARY KEY(`vault_id`, `version`)
);
--> statement-breakpoint
-- An entry re-encrypted for a rotation's new version, with the change stamp it was made from: the
-- commit applies it only if the entry has not been written since.
CREATE TABLE `vault_rotation_entries` (
	`vault_id` text NOT NULL,
	`version` integer NOT NULL,
	`entry_id` text NOT NULL,
	`base_seq` integer NOT NULL,
	`wrapped_item_key` text NOT NULL,
	`encrypted_data` text NOT NULL,
	PRIMARY KEY(`vault_id`, `version`, `entry_id`)
);
--> statement-breakpoint
CREATE TABLE `vault_activity` (
	`id` text PRIMARY KEY NOT NULL,
	`vault_id` text NOT NULL,
	`actor_id` text NOT NULL,
	`action` text NOT NULL,
	`target_id` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `vault_activity_vault_created` ON `vault_activity` (`vault_id`,`created_at`,`id`);--> statement-breakpoint
-- Entries of a shared vault: `user_id` holds the vault id (the vault is the rows' owner on its
-- home shard, so the clock, counters and delta pull work per vault), `vault_id` marks them.
ALTER TABLE `passwords` ADD `vault_id` text;
