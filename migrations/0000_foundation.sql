CREATE TABLE `audit_events` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`action` text NOT NULL,
	`target_type` text,
	`target_id` text,
	`ip` text,
	`user_agent` text,
	`device` text,
	`details` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_events_user_created` ON `audit_events` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `devices` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`device_fingerprint` text NOT NULL,
	`device_name` text NOT NULL,
	`device_type` text NOT NULL,
	`os` text,
	`browser` text,
	`ip_address` text,
	`trust_level` text NOT NULL,
	`is_current` integer DEFAULT false NOT NULL,
	`last_active_at` text NOT NULL,
	`trusted_at` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `devices_user_fingerprint` ON `devices` (`user_id`,`device_fingerprint`);--> statement-breakpoint
CREATE INDEX `devices_user` ON `devices` (`user_id`);--> statement-breakpoint
CREATE TABLE `passwords` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`website` text,
	`url` text,
	`username` text,
	`tags` text DEFAULT '[]' NOT NULL,
	`encryption_version` integer DEFAULT 3 NOT NULL,
	`wrapped_item_key` text,
	`encrypted_data` text,
	`domain_hash` text,
	`name_hash` text,
	`username_hash` text,
	`search_tokens` text DEFAULT '[]' NOT NULL,
	`share_count` integer DEFAULT 0 NOT NULL,
	`has_totp` integer DEFAULT false NOT NULL,
	`has_passkey` integer DEFAULT false NOT NULL,
	`passkey_label` text,
	`strength` text,
	`host` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`deleted_at` text
);
--> statement-breakpoint
CREATE INDEX `passwords_user_created` ON `passwords` (`user_id`,`created_at`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `passwords_user_host` ON `passwords` (`user_id`,`host`) WHERE deleted_at IS NULL;