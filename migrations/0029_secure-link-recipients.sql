-- Secure links for named recipients: the owner lists the addresses that may open a link; the
-- recipient proves one with a one-time code mailed to it. The list is kept only as keyed hashes
-- (HMAC under a server secret, salted by the link id), so the table reads as no address at all.
ALTER TABLE `secure_links` ADD `recipient_hashes` text;--> statement-breakpoint
ALTER TABLE `secure_links` ADD `recipient_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- The challenge whose code a view was last delivered under: the code is consumed in the same batch.
ALTER TABLE `secure_links` ADD `last_code_id` text;--> statement-breakpoint
-- One open attempt of a recipients-only link: the code mailed for it (keyed hash), its expiry and
-- wrong tries. A code opens only the attempt it was made for, once.
CREATE TABLE `secure_link_codes` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_id` text NOT NULL,
	`link_id` text NOT NULL,
	`code_hash` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`expires_at` text NOT NULL,
	`consumed_at` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `secure_link_codes_link` ON `secure_link_codes` (`link_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `secure_link_codes_owner` ON `secure_link_codes` (`owner_id`);
