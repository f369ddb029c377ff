ALTER TABLE `vault_counters` ADD `bytes` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `vault_counters` SET `bytes` = (SELECT coalesce(sum(length(CAST(coalesce(`encrypted_data`, '') AS BLOB)) + length(CAST(coalesce(`wrapped_item_key`, '') AS BLOB))), 0) FROM `passwords` WHERE `passwords`.`user_id` = `vault_counters`.`user_id` AND `deleted_at` IS NULL);
--> statement-breakpoint
CREATE TRIGGER `passwords_bytes_insert` AFTER INSERT ON `passwords` WHEN NEW.`deleted_at` IS NULL
BEGIN
	INSERT OR IGNORE INTO `vault_counters` (`user_id`, `live`, `bytes`) VALUES (NEW.`user_id`, 0, 0);
	UPDATE `vault_counters` SET `bytes` = `bytes` + length(CAST(coalesce(NEW.`encrypted_data`, '') AS BLOB)) + length(CAST(coalesce(NEW.`wrapped_item_key`, '') AS BLOB)) WHERE `user_id` = NEW.`user_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `passwords_bytes_delete` AFTER DELETE ON `passwords` WHEN OLD.`deleted_at` IS NULL
BEGIN
	UPDATE `vault_counters` SET `bytes` = `bytes` - length(CAST(coalesce(OLD.`encrypted_data`, '') AS BLOB)) - length(CAST(coalesce(OLD.`wrapped_item_key`, '') AS BLOB)) WHERE `user_id` = OLD.`user_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `passwords_bytes_update` AFTER UPDATE OF `encrypted_data`, `wrapped_item_key`, `deleted_at`, `user_id` ON `passwords`
BEGIN
	UPDATE `vault_counters` SET `bytes` = `bytes` - length(CAST(coalesce(OLD.`encrypted_data`, '') AS BLOB)) - length(CAST(coalesce(OLD.`wrapped_item_key`, '') AS BLOB)) WHERE `user_id` = OLD.`user_id` AND OLD.`deleted_at` IS NULL;
	INSERT OR IGNORE INTO `vault_counters` (`user_id`, `live`, `bytes`) SELECT NEW.`user_id`, 0, 0 WHERE NEW.`deleted_at` IS NULL;
	UPDATE `vault_counters` SET `bytes` = `bytes` + length(CAST(coalesce(NEW.`encrypted_data`, '') AS BLOB)) + length(CAST(coalesce(NEW.`wrapped_item_key`, '') AS BLOB)) WHERE `user_id` = NEW.`user_id` AND NEW.`deleted_at` IS NULL;
END;
