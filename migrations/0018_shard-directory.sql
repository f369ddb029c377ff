CREATE TABLE `user_shards` (
	`user_id` text PRIMARY KEY NOT NULL,
	`shard` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `session_share_links` (
	`share_id` text PRIMARY KEY NOT NULL,
	`token_hash` text NOT NULL,
	`owner_id` text NOT NULL,
	`expires_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `session_share_links_token` ON `session_share_links` (`token_hash`);--> statement-breakpoint
CREATE INDEX `session_share_links_expiry` ON `session_share_links` (`expires_at`);--> statement-breakpoint
-- Issue 20: a deployment that ran on one database records every existing user on it (DB_0), so
-- adding a shard later moves nobody by accident; on a new shard these tables are empty. One
-- statement per table: D1 refuses a compound SELECT of this many terms.
INSERT OR IGNORE INTO `user_shards` (`user_id`, `shard`, `created_at`) SELECT DISTINCT `user_id`, 'DB_0', strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `passwords`;
--> statement-breakpoint
INSERT OR IGNORE INTO `user_shards` (`user_id`, `shard`, `created_at`) SELECT DISTINCT `user_id`, 'DB_0', strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `devices`;
--> statement-breakpoint
INSERT OR IGNORE INTO `user_shards` (`user_id`, `shard`, `created_at`) SELECT DISTINCT `user_id`, 'DB_0', strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `audit_events`;
--> statement-breakpoint
INSERT OR IGNORE INTO `user_shards` (`user_id`, `shard`, `created_at`) SELECT DISTINCT `user_id`, 'DB_0', strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `notifications`;
--> statement-breakpoint
INSERT OR IGNORE INTO `user_shards` (`user_id`, `shard`, `created_at`) SELECT DISTINCT `user_id`, 'DB_0', strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `sync_clocks`;
--> statement-breakpoint
INSERT OR IGNORE INTO `user_shards` (`user_id`, `shard`, `created_at`) SELECT DISTINCT `user_id`, 'DB_0', strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `vault_counters`;
--> statement-breakpoint
INSERT OR IGNORE INTO `user_shards` (`user_id`, `shard`, `created_at`) SELECT DISTINCT `user_id`, 'DB_0', strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `dead_man_switches`;
--> statement-breakpoint
INSERT OR IGNORE INTO `user_shards` (`user_id`, `shard`, `created_at`) SELECT DISTINCT `owner_id`, 'DB_0', strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `emergency_contacts`;
--> statement-breakpoint
INSERT OR IGNORE INTO `user_shards` (`user_id`, `shard`, `created_at`) SELECT DISTINCT `user_id`, 'DB_0', strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `two_factor`;
--> statement-breakpoint
INSERT OR IGNORE INTO `user_shards` (`user_id`, `shard`, `created_at`) SELECT DISTINCT `user_id`, 'DB_0', strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `password_totp`;
--> statement-breakpoint
INSERT OR IGNORE INTO `user_shards` (`user_id`, `shard`, `created_at`) SELECT DISTINCT `owner_id`, 'DB_0', strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `shares`;
--> statement-breakpoint
INSERT OR IGNORE INTO `user_shards` (`user_id`, `shard`, `created_at`) SELECT DISTINCT `user_id`, 'DB_0', strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `sharing_keys`;
--> statement-breakpoint
INSERT OR IGNORE INTO `user_shards` (`user_id`, `shard`, `created_at`) SELECT DISTINCT `owner_id`, 'DB_0', strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `session_shares`;
--> statement-breakpoint
INSERT OR IGNORE INTO `user_shards` (`user_id`, `shard`, `created_at`) SELECT DISTINCT `user_id`, 'DB_0', strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `identities`;
--> statement-breakpoint
INSERT OR IGNORE INTO `user_shards` (`user_id`, `shard`, `created_at`) SELECT DISTINCT `user_id`, 'DB_0', strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `attachments`;
--> statement-breakpoint
INSERT OR IGNORE INTO `user_shards` (`user_id`, `shard`, `created_at`) SELECT DISTINCT `user_id`, 'DB_0', strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `notes`;
--> statement-breakpoint
INSERT OR IGNORE INTO `user_shards` (`user_id`, `shard`, `created_at`) SELECT DISTINCT `user_id`, 'DB_0', strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `vault_items`;
--> statement-breakpoint
INSERT OR IGNORE INTO `user_shards` (`user_id`, `shard`, `created_at`) SELECT DISTINCT `user_id`, 'DB_0', strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `mail_integrations`;
--> statement-breakpoint
INSERT OR IGNORE INTO `user_shards` (`user_id`, `shard`, `created_at`) SELECT DISTINCT `user_id`, 'DB_0', strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `discovered_accounts`;
--> statement-breakpoint
INSERT OR IGNORE INTO `user_shards` (`user_id`, `shard`, `created_at`) SELECT DISTINCT `user_id`, 'DB_0', strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `reset_jobs`;
--> statement-breakpoint
INSERT OR IGNORE INTO `user_shards` (`user_id`, `shard`, `created_at`) SELECT DISTINCT `user_id`, 'DB_0', strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `push_subscriptions`;
--> statement-breakpoint
INSERT OR IGNORE INTO `session_share_links` (`share_id`, `token_hash`, `owner_id`, `expires_at`)
SELECT `id`, `token_hash`, `owner_id`, `expires_at` FROM `session_shares`;
