/**
 * Whose passkeys a page may ask for: the relying party id rules of WebAuthn Level 3, enforced by
 * the vault rather than left to the page (§5.1.3 step 7-8 and §5.1.4.1 step 7-8, "is a registrable
 * domain suffix of or is equal to"; HTML's definition of a registrable domain suffix). The public
 * suffix list is tldts' (the one the extension already uses for registrable domains), private
 * suffixes included, as browsers apply it: "github.io" is nobody's rp id.
 */
import { isPublicSuffix } from "../../src/kernel/site";

export type RpRefusal = "insecure" | "not-a-domain" | "other-site" | "public-suffix";

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/** A secure origin for WebAuthn: https, or http on localhost (and its subdomains), which browsers count as trustworthy. */
export function secureForWebAuthn(origin: URL): boolean {
  if (origin.protocol === "https:") return true;
  const host = origin.hostname;
  return origin.protocol === "http:" && (host === "localhost" || host.endsWith(".localhost"));
}

/**
 * The rp id a request may use on `pageUrl`, or why not. `rpId` undefined means the page's own
 * host (the default of both create and get). IP addresses are no valid domain, so never an rp.
 */
export function checkRpId(
  pageUrl: string,
  rpId: string | undefined,
): { ok: true; rpId: string; origin: string } | { ok: false; reason: RpRefusal } {
  let page: URL;
  try {
    page = new URL(pageUrl);
  } catch {
    return { ok: false, reason: "not-a-domain" };
  }
  if (!secureForWebAuthn(page)) return { ok: false, reason: "insecure" };
  const host = page.hostname.toLowerCase();
  if (!host || IPV4.test(host) || host.startsWith("["))
    return { ok: false, reason: "not-a-domain" };
  const rp = (rpId ?? host).toLowerCase();
  if (
    !rp ||
    rp.endsWith(".") ||
    rp.startsWith(".") ||
    rp.includes("..") ||
    !/^[a-z0-9.-]+$/.test(rp)
  )
    return { ok: false, reason: "not-a-domain" };
  if (rp !== host && !host.endsWith(`.${rp}`)) return { ok: false, reason: "other-site" };
  // localhost is its own site (the browser treats it as such); any other rp must sit below a public suffix.
  const local = rp === "localhost" || rp.endsWith(".localhost");
  if (!local && isPublicSuffix(rp)) return { ok: false, reason: "public-suffix" };
  return { ok: true, rpId: rp, origin: page.origin };
}
