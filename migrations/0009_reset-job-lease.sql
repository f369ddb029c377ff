ALTER TABLE `reset_jobs` ADD `lease_id` text;--> statement-breakpoint
ALTER TABLE `reset_jobs` ADD `lease_expires_at` text;--> statement-breakpoint
ALTER TABLE `reset_jobs` ADD `runs` integer DEFAULT 0 NOT NULL;