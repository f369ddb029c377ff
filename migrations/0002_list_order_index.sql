DROP INDEX `passwords_user_created`;--> statement-breakpoint
CREATE INDEX `passwords_user_created` ON `passwords` (`user_id`,`created_at`,`id`) WHERE deleted_at IS NULL;