CREATE TABLE `identities` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`display_name` text,
	`first_name` text,
	`last_name` text,
	`username` text,
	`email_alias` text,
	`phone_number` text,
	`date_of_birth` text,
	`gender` text,
	`address_line1` text,
	`address_city` text,
	`address_state` text,
	`address_zip` text,
	`address_country` text,
	`status` text NOT NULL,
	`label` text,
	`notes` text,
	`used_for_service` text,
	`alias_provider` text,
	`alias_id` text,
	`alias_key_sealed` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `identities_user_created` ON `identities` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `attachments` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`parent_type` text NOT NULL,
	`parent_id` text NOT NULL,
	`size` integer NOT NULL,
	`r2_key` text NOT NULL,
	`wrapped_file_key` text NOT NULL,
	`encrypted_filename` text NOT NULL,
	`encrypted_mime_type` text NOT NULL,
	`created_at` text NOT NULL,
	`deleting_at` text
);
--> statement-breakpoint
CREATE INDEX `attachments_user_parent` ON `attachments` (`user_id`,`parent_type`,`parent_id`);--> statement-breakpoint
CREATE INDEX `attachments_user_deleting` ON `attachments` (`user_id`) WHERE deleting_at IS NOT NULL;--> statement-breakpoint
CREATE TABLE `notes` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`created_at` text NOT NULL,
	`deleted_at` text
);
--> statement-breakpoint
CREATE INDEX `notes_user` ON `notes` (`user_id`);--> statement-breakpoint
CREATE TABLE `vault_items` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`created_at` text NOT NULL,
	`deleted_at` text
);
--> statement-breakpoint
CREATE INDEX `vault_items_user` ON `vault_items` (`user_id`);