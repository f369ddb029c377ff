CREATE TABLE `shares` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`owner_id` text NOT NULL,
	`recipient_id` text,
	`recipient_email` text NOT NULL,
	`status` text NOT NULL,
	`permission` text NOT NULL,
	`wrapped_vault_key_invite` text,
	`invite_token_salt` text,
	`expires_at` text,
	`accepted_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `shares_owner` ON `shares` (`owner_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `shares_account` ON `shares` (`account_id`);--> statement-breakpoint
CREATE INDEX `shares_recipient` ON `shares` (`recipient_id`);--> statement-breakpoint
CREATE INDEX `shares_recipient_email` ON `shares` (`recipient_email`);--> statement-breakpoint
CREATE UNIQUE INDEX `shares_live_unique` ON `shares` (`account_id`,`recipient_email`) WHERE status <> 'revoked';--> statement-breakpoint
CREATE TABLE `sharing_keys` (
	`user_id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`public_key` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `share_view_logs` (
	`id` text PRIMARY KEY NOT NULL,
	`share_id` text NOT NULL,
	`owner_id` text NOT NULL,
	`recipient_id` text NOT NULL,
	`action` text NOT NULL,
	`ip` text,
	`user_agent` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `share_view_logs_share` ON `share_view_logs` (`share_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `session_shares` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_id` text NOT NULL,
	`account_id` text NOT NULL,
	`service_name` text NOT NULL,
	`login_url` text NOT NULL,
	`token_hash` text NOT NULL,
	`sealed_credentials` text NOT NULL,
	`access_type` text NOT NULL,
	`login_method` text NOT NULL,
	`max_viewers` integer NOT NULL,
	`watermark_enabled` integer NOT NULL,
	`status` text NOT NULL,
	`current_viewers` integer DEFAULT 0 NOT NULL,
	`duration_minutes` integer NOT NULL,
	`estimated_cost_cents` integer NOT NULL,
	`scheduled_start` text,
	`expires_at` text NOT NULL,
	`ended_at` text,
	`failure_reason` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `session_shares_token` ON `session_shares` (`token_hash`);--> statement-breakpoint
CREATE INDEX `session_shares_owner` ON `session_shares` (`owner_id`,`created_at`);