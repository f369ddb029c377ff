-- Blind host hashes of an entry's addresses beyond its main one (the main one matches on
-- `passwords.host`): the client's keyed HMAC of each normalised host, so `match` can find an entry
-- by any of its addresses while the addresses themselves stay sealed. Rows carry the owner, and
-- triggers drop an entry's rows when it is deleted (soft or hard) or changes owner, in the same
-- statement, so no writer leaves hashes behind for an entry that can no longer match.
CREATE TABLE `password_hosts` (
	`user_id` text NOT NULL,
	`password_id` text NOT NULL,
	`host_hash` text NOT NULL,
	PRIMARY KEY(`user_id`, `host_hash`, `password_id`)
);
--> statement-breakpoint
CREATE INDEX `password_hosts_entry` ON `password_hosts` (`user_id`, `password_id`);
--> statement-breakpoint
CREATE TRIGGER `passwords_hosts_soft_delete` AFTER UPDATE OF `deleted_at`, `user_id` ON `passwords`
WHEN (OLD.`deleted_at` IS NULL AND NEW.`deleted_at` IS NOT NULL) OR OLD.`user_id` <> NEW.`user_id`
BEGIN
	DELETE FROM `password_hosts` WHERE `user_id` = OLD.`user_id` AND `password_id` = OLD.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `passwords_hosts_delete` AFTER DELETE ON `passwords`
BEGIN
	DELETE FROM `password_hosts` WHERE `user_id` = OLD.`user_id` AND `password_id` = OLD.`id`;
END;
