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
CREATE INDEX `discovered_accounts_user` ON `discovered_accounts` (`user_id`);--> statement-breakpoint
CREATE TABLE `registry_overrides` (
	`domain` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`logo_url` text,
	`category` text,
	`login_url` text,
	`reset_url` text,
	`passkey_setup_url` text,
	`passkey_support_type` text,
	`login_type` text,
	`browser_type` text,
	`sender_patterns` text,
	`gmail_search_queries` text,
	`otp_patterns` text,
	`link_patterns` text,
	`success_indicators` text,
	`forgot_password_selectors` text,
	`email_input_selectors` text,
	`submit_selectors` text,
	`submit_button_text` text,
	`skip_submit_patterns` text,
	`password_requirements` text,
	`recovery_method` text,
	`notes` text,
	`is_verified` integer,
	`is_active` integer DEFAULT true NOT NULL,
	`created_by` text,
	`updated_by` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `registry_overrides_active` ON `registry_overrides` (`is_active`);--> statement-breakpoint
CREATE INDEX `registry_overrides_category` ON `registry_overrides` (`category`);--> statement-breakpoint
CREATE TABLE `reset_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`service` text NOT NULL,
	`service_url` text NOT NULL,
	`email` text NOT NULL,
	`password_id` text,
	`client_public_key` text,
	`status` text NOT NULL,
	`error` text,
	`steps` text NOT NULL,
	`started_at` text,
	`completed_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `reset_jobs_user_created` ON `reset_jobs` (`user_id`,`created_at`);