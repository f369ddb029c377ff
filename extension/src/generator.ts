/**
 * The popup generator's rules: the service registry's password requirements for the site (the
 * built-in registry, src/kernel/registry; the database overrides are an admin resource the extension
 * cannot read), else the registry's defaults. The generator is the shared one
 * (src/kernel/password-generator.ts).
 */
import { BUILTIN_SERVICES } from "../../src/kernel/registry/services";
import { DEFAULT_REQUIREMENTS, type PasswordRequirements } from "../../src/kernel/password-rules";
import { registrableDomain } from "../../src/kernel/site";

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

export function describe(r: PasswordRequirements): string {
  const parts = [`${r.minLength ?? 8}–${r.maxLength ?? 64} characters`];
  if (r.requireUppercase) parts.push("upper case");
  if (r.requireLowercase) parts.push("lower case");
  if (r.requireNumbers) parts.push("digits");
  if (r.requireSymbols) parts.push(`symbols${r.specificSymbols ? ` (${r.specificSymbols})` : ""}`);
  return parts.join(", ");
}
