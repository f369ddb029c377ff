-- DPoP proofs already accepted (RFC 9449 section 11.1): a proof is taken once. A row lives until the
-- proof could no longer be accepted anyway (its iat and nonce windows); the user's expired rows go
-- in the same batch that adds one.
CREATE TABLE `dpop_proofs` (
	`user_id` text NOT NULL,
	`proof_id` text NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `proof_id`)
);
