import { TestUser } from "./auth";

/** An admin whose requests come from their own client IP, so per-IP registry limits do not collide. */
export async function adminFromFreshIp(): Promise<{
  admin: TestUser;
  ip: string;
  call: (m: string, p: string, body?: unknown) => Promise<Response>;
}> {
  const admin = await TestUser.create({ admin: true });
  const ip = `203.0.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
  return {
    admin,
    ip,
    call: (m, p, body) => admin.call(m, p, { body, headers: { "cf-connecting-ip": ip } }),
  };
}

export const uniqueDomain = () => `svc-${crypto.randomUUID().slice(0, 8)}.example`;
