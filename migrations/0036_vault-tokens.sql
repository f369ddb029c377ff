-- Read-only tokens for machines and agents (docs/cli.md, "Tokens for machines and agents";
-- docs/crypto.md, "Machine tokens"). Directory tables, beside the vaults they open: a token is found
-- by its id alone, whoever presents it.
CREATE TABLE `vault_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`vault_id` text NOT NULL,
	-- The member who made it: their list, their read log, and the token stops when they leave.
	`owner_id` text NOT NULL,
	`name` text NOT NULL,
	-- SHA-256 of the authenticator the token's secret derives; the secret itself is never sent.
	`auth_hash` text NOT NULL,
	-- The vault key of this version wrapped under a key only the token's secret derives.
	`key_version` integer NOT NULL,
	`wrapped_key` text NOT NULL,
	`expires_at` text NOT NULL,
	`created_at` text NOT NULL,
	`last_used_at` text,
	`revoked_at` text,
	-- `owner` (revoked by its maker), `key_rotated` (the vault's key changed), `member_left`.
	`revoked_reason` text
);
--> statement-breakpoint
CREATE INDEX `vault_tokens_owner` ON `vault_tokens` (`owner_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `vault_tokens_vault` ON `vault_tokens` (`vault_id`);--> statement-breakpoint
CREATE TABLE `vault_token_reads` (
	`id` text PRIMARY KEY NOT NULL,
	`token_id` text NOT NULL,
	`owner_id` text NOT NULL,
	`vault_id` text NOT NULL,
	`token_name` text NOT NULL,
	`reason` text,
	`entries` integer NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `vault_token_reads_owner` ON `vault_token_reads` (`owner_id`,`created_at`,`id`);
