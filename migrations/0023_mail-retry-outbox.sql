-- Mail the HTTP transport could neither send nor hand to the queue (DECISIONS D19: never dropped):
-- kept here until the scheduled job delivers it, or moves it to mail_dead_letters after its last try.
CREATE TABLE `mail_retry_outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`to_address` text NOT NULL,
	`subject` text NOT NULL,
	`text_body` text NOT NULL,
	`kind` text NOT NULL,
	`attempts` integer NOT NULL,
	`last_error` text NOT NULL,
	`next_attempt_at` text NOT NULL,
	`created_at` text NOT NULL
);
CREATE INDEX `mail_retry_outbox_due` ON `mail_retry_outbox` (`next_attempt_at`);
