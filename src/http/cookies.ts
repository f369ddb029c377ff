import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";

/**
 * The service's own cookies (the session and the sign-in and OAuth flow cookies) carry the
 * `__Host-` prefix whenever the request came over https (RFC 6265bis section 4.1.3.2): the browser
 * then keeps them only when Secure, Path=/ and without Domain, so a sibling subdomain cannot plant
 * or overwrite one (cookie tossing). Over plain http, which only local development uses, a
 * browser refuses a `__Host-` cookie, so there the bare name is used; and only the name that fits
 * the transport is read, so an unprefixed cookie planted on an https origin is never honoured.
 */
export const overHttps = (c: Context) => new URL(c.req.url).protocol === "https:";

export const cookieName = (c: Context, name: string) => (overHttps(c) ? `__Host-${name}` : name);

export type HostCookieOptions = { httpOnly: true; sameSite: "Strict" | "Lax"; maxAge: number };

export function setHostCookie(
  c: Context,
  name: string,
  value: string,
  opts: HostCookieOptions,
): void {
  setCookie(c, cookieName(c, name), value, { ...opts, path: "/", secure: overHttps(c) });
}

export function getHostCookie(c: Context, name: string): string | undefined {
  return getCookie(c, cookieName(c, name));
}

export function deleteHostCookie(c: Context, name: string): void {
  deleteCookie(c, cookieName(c, name), { path: "/", secure: overHttps(c) });
}
