CREATE TABLE `mail_integrations` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`provider` text NOT NULL,
	`email` text NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`secret` text NOT NULL,
	`expires_at` integer,
	`scopes` text,
	`connected_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `mail_integrations_user_provider` ON `mail_integrations` (`user_id`,`provider`);--> statement-breakpoint
CREATE TABLE `oauth_states` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`provider` text NOT NULL,
	`code_verifier` text NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `oauth_states_expires` ON `oauth_states` (`expires_at`);--> statement-breakpoint
CREATE TABLE `discovered_accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`domain` text NOT NULL,
	`service_name` text NOT NULL,
	`service_icon` text NOT NULL,
	`service_color` text NOT NULL,
	`category` text,
	`login_url` text,
	`in_vault` integer DEFAULT false NOT NULL,
	`vault_password_id` text,
	`dismissed` integer DEFAULT false NOT NULL,
	`oauth_likely` integer DEFAULT false NOT NULL,
	`email_count` integer DEFAULT 0 NOT NULL,
	`source_email` text,
	`last_seen_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `discovered_accounts_user_domain` ON `discovered_accounts` (`user_id`,`domain`);--> statement-breakpoint
CREATE INDEX `discovered_accounts_user` ON `discovered_accounts` (`user_id`);