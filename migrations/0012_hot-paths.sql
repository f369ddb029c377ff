CREATE TABLE `vault_counters` (
	`user_id` text PRIMARY KEY NOT NULL,
	`live` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
DROP INDEX `passwords_user_change`;--> statement-breakpoint
CREATE INDEX `passwords_user_change_id` ON `passwords` (`user_id`,`change_seq`,`id`);
--> statement-breakpoint
INSERT INTO `vault_counters` (`user_id`, `live`) SELECT `user_id`, count(*) FROM `passwords` WHERE `deleted_at` IS NULL GROUP BY `user_id`;
--> statement-breakpoint
CREATE TRIGGER `passwords_live_count_insert` AFTER INSERT ON `passwords` WHEN NEW.`deleted_at` IS NULL
BEGIN
	INSERT OR IGNORE INTO `vault_counters` (`user_id`, `live`) VALUES (NEW.`user_id`, 0);
	UPDATE `vault_counters` SET `live` = `live` + 1 WHERE `user_id` = NEW.`user_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `passwords_live_count_delete` AFTER DELETE ON `passwords` WHEN OLD.`deleted_at` IS NULL
BEGIN
	UPDATE `vault_counters` SET `live` = `live` - 1 WHERE `user_id` = OLD.`user_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `passwords_live_count_update` AFTER UPDATE OF `deleted_at`, `user_id` ON `passwords`
WHEN (OLD.`deleted_at` IS NULL) <> (NEW.`deleted_at` IS NULL) OR OLD.`user_id` <> NEW.`user_id`
BEGIN
	UPDATE `vault_counters` SET `live` = `live` - 1 WHERE `user_id` = OLD.`user_id` AND OLD.`deleted_at` IS NULL;
	INSERT OR IGNORE INTO `vault_counters` (`user_id`, `live`) SELECT NEW.`user_id`, 0 WHERE NEW.`deleted_at` IS NULL;
	UPDATE `vault_counters` SET `live` = `live` + 1 WHERE `user_id` = NEW.`user_id` AND NEW.`deleted_at` IS NULL;
END;
