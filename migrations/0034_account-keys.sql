-- The account key between the passphrase and the vault: one wrap per user, on the user's shard.
CREATE TABLE `account_keys` (
	`user_id` text PRIMARY KEY NOT NULL,
	`key_version` integer NOT NULL,
	`revision` integer NOT NULL,
	`kdf_iterations` integer NOT NULL,
	`wrapped_key` text NOT NULL,
	`updated_at` text NOT NULL
);
