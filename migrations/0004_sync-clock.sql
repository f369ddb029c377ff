CREATE TABLE `sync_clocks` (
	`user_id` text PRIMARY KEY NOT NULL,
	`clock` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `passwords` ADD `change_seq` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `passwords_user_change` ON `passwords` (`user_id`,`change_seq`);--> statement-breakpoint
CREATE INDEX `passwords_tombstone_change` ON `passwords` (`change_seq`) WHERE deleted_at IS NOT NULL;