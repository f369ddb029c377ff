CREATE TABLE `reset_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`service` text NOT NULL,
	`service_url` text NOT NULL,
	`email` text NOT NULL,
	`password_id` text,
	`client_public_key` text,
	`status` text NOT NULL,
	`error` text,
	`steps` text NOT NULL,
	`started_at` text,
	`completed_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `reset_jobs_user_created` ON `reset_jobs` (`user_id`,`created_at`);