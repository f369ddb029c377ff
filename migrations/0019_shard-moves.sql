ALTER TABLE `user_shards` ADD `moving_to` text;--> statement-breakpoint
ALTER TABLE `user_shards` ADD `cleanup_from` text;