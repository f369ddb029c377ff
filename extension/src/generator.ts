/**
 * The popup's password generator. It honours the service registry's password requirements for the
 * site (the built-in registry, src/data/registry; the database overrides are an admin resource the
 * extension cannot read), else the registry's defaults.
 */
import { BUILTIN_SERVICES } from "../../src/data/registry/services";
import { generateFromClasses } from "../../src/kernel/password-generator";
import { DEFAULT_REQUIREMENTS, type PasswordRequirements } from "../../src/kernel/password-rules";
import { registrableDomain } from "../../src/kernel/site";

/** Long enough for ~120 bits from the full alphabet; a service's maximum may cut it shorter. */
const PREFERRED_LENGTH = 20;

export function requirementsFor(url: string): {
  service: string | null;
  requirements: PasswordRequirements;
} {
  const domain = registrableDomain(url);
  const service = BUILTIN_SERVICES.find((s) => s.domain === domain);
  return {
    service: service?.name ?? null,
    requirements: { ...DEFAULT_REQUIREMENTS, ...service?.password_requirements },
  };
}

export function generatePassword(r: PasswordRequirements): string {
  // Classes a service does not ask for are left out: a service that does not require symbols often refuses them.
  const classes = {
    lower: r.requireLowercase ?? true,
    upper: r.requireUppercase ?? true,
    digits: r.requireNumbers ?? true,
    symbols: r.requireSymbols ?? true,
  };
  return generateFromClasses(
    classes,
    Math.max(r.minLength ?? 8, Math.min(PREFERRED_LENGTH, r.maxLength ?? PREFERRED_LENGTH)),
    r,
  );
}

export function describe(r: PasswordRequirements): string {
  const parts = [`${r.minLength ?? 8}–${r.maxLength ?? 64} characters`];
  if (r.requireUppercase) parts.push("upper case");
  if (r.requireLowercase) parts.push("lower case");
  if (r.requireNumbers) parts.push("digits");
  if (r.requireSymbols) parts.push(`symbols${r.specificSymbols ? ` (${r.specificSymbols})` : ""}`);
  return parts.join(", ");
}
