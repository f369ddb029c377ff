/**
 * The password rules of the service registry for the vault form's generator (the generator itself
 * is the shared one, src/kernel/password-generator.ts). The rules are the built-in registry's,
 * published by the build as one static file (/password-rules.json): the same request for every
 * entry, so nothing about the entry leaves the device.
 */
import type { RulesTable } from "../../src/kernel/password-generator";

let table: Promise<RulesTable> | undefined;
const FALLBACK: RulesTable = { default: { minLength: 8, maxLength: 64 }, services: [] };

/** The registry's rules, fetched once per page (the service worker keeps them for offline use). */
export function passwordRules(): Promise<RulesTable> {
  table ??= fetch("/password-rules.json")
    .then((r) => (r.ok ? (r.json() as Promise<RulesTable>) : FALLBACK))
    .catch(() => FALLBACK);
  return table;
}
