-- Guessing codes of a recipients-only link is bounded per link, as passphrases are: every wrong
-- code counts here, and the link locks for good at the documented number.
ALTER TABLE `secure_links` ADD `failed_codes` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- The keyed hash of the address an attempt was asked for (the recipients' hash of it): the open
-- checks it against the link's list, and the asks are counted per address.
ALTER TABLE `secure_link_codes` ADD `address_hash` text;--> statement-breakpoint
CREATE INDEX `secure_link_codes_address` ON `secure_link_codes` (`link_id`,`address_hash`,`created_at`);
