-- One row per database: a random id written on first use, so a backup can tell which bindings
-- (DB_0, DIRECTORY) name the same database and copy each database once. Never backed up or restored.
CREATE TABLE `database_identity` (
	`singleton` integer PRIMARY KEY NOT NULL CHECK (`singleton` = 1),
	`id` text NOT NULL
);
