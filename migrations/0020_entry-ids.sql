CREATE TABLE `entry_ids` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_id` text NOT NULL
);
--> statement-breakpoint
DROP INDEX `shares_live_unique`;--> statement-breakpoint
CREATE UNIQUE INDEX `shares_live_unique` ON `shares` (`owner_id`,`account_id`,`recipient_email`) WHERE status <> 'revoked';