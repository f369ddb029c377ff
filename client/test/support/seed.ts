/**
 * A vault set up through the API, for tests whose subject is not the entry form: each entry sealed
 * by the web client's own code (core/vault's sealInput, as the form's save seals it) and pushed
 * through sync from Node, before the page signs in and pulls it. Filling the form costs a few
 * seconds an entry on a loaded machine; the suite's entry-form tests keep doing it through the page.
 */
import { randomUUID } from "node:crypto";
import { deriveVaultKeys, type VaultKeys } from "../../../core/crypto/crypto";
import type { MutationResult, WireMutation } from "../../../core/api/api";
import { sealInput, type EntryInput } from "../../../core/vault";
import { apiAs } from "./api";
import { entryRow, signInThroughPage, type Page } from "./browser";
import { base } from "./journey";

/** An entry as the form would save it: the fields it fills, the rest empty. */
export type SeedEntry = Partial<EntryInput> & { name: string };

type Person = { sub: string; token: string };

/** Derived once per user and passphrase: 600,000 rounds are a second or more on a loaded machine. */
const derived = new Map<string, Promise<VaultKeys>>();
export function keysOf(user: Person, passphrase: string): Promise<VaultKeys> {
  const key = `${user.sub}\n${passphrase}`;
  if (!derived.has(key)) derived.set(key, deriveVaultKeys(passphrase, user.sub));
  return derived.get(key)!;
}

/** The form's input for an entry: what it leaves empty is empty, as the form sends it. */
const inputOf = (e: SeedEntry): EntryInput => ({
  website: "",
  url: "",
  username: "",
  password: "",
  notes: "",
  category: "",
  totp: "",
  tags: [],
  ...e,
});

/**
 * Creates the entries in the user's vault through sync, sealed with the keys of `passphrase` (the
 * vault's, or its first passphrase when it is empty), and returns their ids by name. Every
 * mutation must be applied: a refused one fails the set-up, not a later assertion.
 */
export async function seedEntries(
  user: Person,
  passphrase: string,
  entries: SeedEntry[],
): Promise<Map<string, string>> {
  const keys = await keysOf(user, passphrase);
  const now = new Date().toISOString();
  const mutations: WireMutation[] = await Promise.all(
    entries.map(async (e) => {
      const id = randomUUID();
      const input = inputOf(e);
      // As Vault.create: a new password's age starts at its save.
      const { data } = await sealInput(keys, user.sub, id, {
        ...input,
        password_changed_at: input.password_changed_at ?? (input.password ? now : undefined),
      });
      return { action: "create", id, data, clientUpdatedAt: now };
    }),
  );
  const api = await apiAs(base(), user.token);
  const res = await api.post("/api/passwords/sync", { mutations });
  const results = (res.body?.results ?? []) as MutationResult[];
  if (res.status !== 200 || results.some((r) => r.status !== "applied"))
    throw new Error(`seeding ${entries.length} entries: ${res.status} ${JSON.stringify(res.body)}`);
  return new Map(entries.map((e, i) => [e.name, mutations[i]!.id]));
}

/**
 * Seeds the entries, then signs in through the page (signInThroughPage) and waits until the first
 * sync has listed every one of them: the state a sign-in followed by the form's saves left.
 */
export async function signInWithEntries(
  page: Page,
  user: Person,
  passphrase: string,
  entries: SeedEntry[],
) {
  // No entries, no seed: the sign-in finds the empty vault a new user has.
  const ids = entries.length
    ? await seedEntries(user, passphrase, entries)
    : new Map<string, string>();
  await signInThroughPage(page, user.token, passphrase);
  for (const e of entries) await entryRow(page, e.name).first().waitFor();
  return ids;
}

/**
 * Seeds the entries into the vault of a page already signed in, and has the page pull them ("Sync
 * now", as a person would press it) until every one is listed: for a test whose subject needs the
 * sign-in to have found an empty vault, as it did before the form's saves (a new browser signing
 * in to a vault with entries starts its first pull at the click, which leaves its own marks).
 */
export async function seedIntoPage(
  page: Page,
  user: Person,
  passphrase: string,
  entries: SeedEntry[],
) {
  const ids = await seedEntries(user, passphrase, entries);
  // A sync already under way may have asked before the seed: a press during it joins it rather
  // than pulling anew, so the press waits until none runs.
  await page.locator("#net-state").filter({ hasNotText: "syncing" }).waitFor();
  await page.getByRole("button", { name: "Sync now" }).click();
  for (const e of entries) await entryRow(page, e.name).first().waitFor();
  return ids;
}
