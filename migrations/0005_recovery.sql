CREATE TABLE `outbound_emails` (
	`id` text PRIMARY KEY NOT NULL,
	`to_address` text NOT NULL,
	`subject` text NOT NULL,
	`text_body` text NOT NULL,
	`kind` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `outbound_emails_to_created` ON `outbound_emails` (`to_address`,`created_at`);--> statement-breakpoint
CREATE TABLE `dead_man_switches` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`owner_email` text,
	`enabled` integer NOT NULL,
	`inactivity_days` integer NOT NULL,
	`notify_at_days` text NOT NULL,
	`notify_via` text NOT NULL,
	`confirmation_required` integer NOT NULL,
	`secret_phrase_hash` text,
	`last_check_in` text NOT NULL,
	`next_trigger_at` text,
	`status` text NOT NULL,
	`reminders_sent` text DEFAULT '[]' NOT NULL,
	`triggered_at` text,
	`release_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `dead_man_switches_user_id_unique` ON `dead_man_switches` (`user_id`);--> statement-breakpoint
CREATE TABLE `dead_man_switch_recipients` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_id` text NOT NULL,
	`switch_id` text NOT NULL,
	`user_id` text,
	`recipient_email` text NOT NULL,
	`recipient_name` text,
	`status` text NOT NULL,
	`wrapped_recovery_key` text NOT NULL,
	`released_at` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `dms_recipients_owner_email` ON `dead_man_switch_recipients` (`owner_id`,`recipient_email`);--> statement-breakpoint
CREATE INDEX `dms_recipients_email` ON `dead_man_switch_recipients` (`recipient_email`);--> statement-breakpoint
CREATE TABLE `dead_man_switch_logs` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_id` text NOT NULL,
	`action` text NOT NULL,
	`details` text NOT NULL,
	`timestamp` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `dms_logs_owner_time` ON `dead_man_switch_logs` (`owner_id`,`timestamp`);--> statement-breakpoint
CREATE TABLE `emergency_contacts` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_id` text NOT NULL,
	`owner_email` text,
	`contact_email` text NOT NULL,
	`contact_user_id` text,
	`status` text NOT NULL,
	`wait_hours` integer NOT NULL,
	`invite_token_hash` text NOT NULL,
	`invite_expires_at` text NOT NULL,
	`wrapped_access_key` text NOT NULL,
	`invite_salt` text NOT NULL,
	`requested_at` text,
	`grant_at` text,
	`granted_at` text,
	`expires_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `emergency_contacts_invite_token_hash_unique` ON `emergency_contacts` (`invite_token_hash`);--> statement-breakpoint
CREATE INDEX `emergency_owner` ON `emergency_contacts` (`owner_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `emergency_contact_user` ON `emergency_contacts` (`contact_user_id`);