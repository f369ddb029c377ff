-- A code accepted for a sign-in verifies it (D20), but only a code the sign-in was asked for makes
-- it fresh for step-up (D3): the code that confirms an enrollment does not. `fresh_at` is the time
-- of the last code that counts; rows from before it start empty, so a session that confirmed its
-- own enrollment cannot carry that code forward as a sign-in.
ALTER TABLE `two_factor_sign_ins` ADD `fresh_at` integer;
