ALTER TABLE `emergency_contacts` ADD `vault_read_notified_at` text;--> statement-breakpoint
ALTER TABLE `sharing_keys` ADD `wrapped_private_key` text;