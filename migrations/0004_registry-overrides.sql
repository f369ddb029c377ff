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
CREATE INDEX `registry_overrides_category` ON `registry_overrides` (`category`);