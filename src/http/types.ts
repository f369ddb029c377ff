import type { Bindings, Config } from "../env";

export type AuthUser = {
  id: string;
  email?: string;
  /** Seconds since the epoch of the last real sign-in (`auth_time`). */
  authTime?: number;
  roles: string[];
};

export type RequestMeta = { ip: string; userAgent: string; device: string | null };

export type AppEnv = {
  Bindings: Bindings;
  Variables: {
    config: Config;
    user: AuthUser;
  };
};

export function requestMeta(req: { header(name: string): string | undefined }): RequestMeta {
  return {
    ip: req.header("cf-connecting-ip") ?? req.header("x-forwarded-for")?.split(",")[0]?.trim() ?? "unknown",
    userAgent: req.header("user-agent") ?? "",
    device: req.header("x-device-fingerprint") ?? null,
  };
}
