CREATE TABLE `two_factor` (
	`user_id` text PRIMARY KEY NOT NULL,
	`enrollment_id` text NOT NULL,
	`secret_sealed` text NOT NULL,
	`created_at` text NOT NULL,
	`enrolled_at` text,
	`last_used_step` integer,
	`failed_count` integer DEFAULT 0 NOT NULL,
	`failed_window_start` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `two_factor_recovery_codes` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`code_hash` text NOT NULL,
	`used_at` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `two_factor_recovery_user_hash` ON `two_factor_recovery_codes` (`user_id`,`code_hash`);--> statement-breakpoint
CREATE TABLE `password_totp` (
	`password_id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`zero_trust` integer NOT NULL,
	`secret_encrypted` text,
	`secret_sealed` text,
	`algorithm` text NOT NULL,
	`digits` integer NOT NULL,
	`period` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `password_totp_user` ON `password_totp` (`user_id`);