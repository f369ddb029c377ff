import { DurableObject } from "cloudflare:workers";

/** How a token is obtained is the integrations domain's; the entry registers it (src/index.ts). */
export type TokenSource<E, T> = (
  env: E,
  userId: string,
  provider: string,
  force: boolean,
) => Promise<T>;

/**
 * One object per user. Requests for a provider's token while a refresh is in flight wait for that
 * refresh instead of starting their own (single flight), so rotating refresh tokens never race.
 */
export abstract class TokenRefresherBase<E = unknown, T = unknown> extends DurableObject<E> {
  protected abstract source: TokenSource<E, T>;
  private inflight = new Map<string, Promise<T>>();

  async token(userId: string, provider: string, force: boolean): Promise<T> {
    const running = this.inflight.get(provider);
    if (running) return running;
    const p = this.source(this.env, userId, provider, force).finally(() =>
      this.inflight.delete(provider),
    );
    this.inflight.set(provider, p);
    return p;
  }
}

export function tokenClient<T, P extends string = string>(
  ns: DurableObjectNamespace<TokenRefresherBase>,
  userId: string,
) {
  const stub = ns.get(ns.idFromName(`user:${userId}`));
  return {
    token: (provider: P, force = false) => stub.token(userId, provider, force) as Promise<T>,
  };
}
