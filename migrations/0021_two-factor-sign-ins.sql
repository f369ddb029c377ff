-- Account 2FA in force (DECISIONS D20): which sign-ins passed a code, and whether the account asks for one.
ALTER TABLE `two_factor` ADD `enforced` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `two_factor` SET `enforced` = 1 WHERE `enrolled_at` IS NOT NULL;--> statement-breakpoint
CREATE TABLE `two_factor_sign_ins` (
	`user_id` text NOT NULL,
	`sign_in` text NOT NULL,
	`verified_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `sign_in`)
);
--> statement-breakpoint
-- Invitations found in the app (DECISIONS D21): open invitations listed by the invitee's address.
CREATE INDEX `emergency_invitee` ON `emergency_contacts` (`contact_email`,`status`);
