-- The trash: a soft-deleted entry keeps its ciphertext (restorable) until it is purged, by the
-- person or when TRASH_RETENTION_DAYS have passed. A purged row drops its ciphertext and stays a
-- bare tombstone until the sync cursor window has passed, so every device still learns of the
-- deletion through its delta pull.
ALTER TABLE `passwords` ADD `purged_at` text;
--> statement-breakpoint
CREATE INDEX `passwords_user_trash` ON `passwords` (`user_id`,`deleted_at`,`id`) WHERE deleted_at IS NOT NULL AND purged_at IS NULL;
--> statement-breakpoint
CREATE INDEX `passwords_trash_expiry` ON `passwords` (`deleted_at`) WHERE deleted_at IS NOT NULL AND purged_at IS NULL;
