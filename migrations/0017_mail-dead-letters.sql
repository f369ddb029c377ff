CREATE TABLE `mail_dead_letters` (
	`id` text PRIMARY KEY NOT NULL,
	`to_address` text NOT NULL,
	`subject` text NOT NULL,
	`text_body` text NOT NULL,
	`kind` text NOT NULL,
	`attempts` integer NOT NULL,
	`last_error` text NOT NULL,
	`created_at` text NOT NULL
);
