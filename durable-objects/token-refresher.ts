import { DurableObject } from "cloudflare:workers";
import type { Bindings } from "../src/env";
import { freshToken, type FreshToken } from "../src/domains/integrations/tokens";
import type { OAuthProvider } from "../src/domains/integrations/providers";

/**
 * One object per user. Requests for a provider's token while a refresh is in flight wait for that
 * refresh instead of starting their own (single flight), so rotating refresh tokens never race.
 */
export class TokenRefresher extends DurableObject<Bindings> {
  private inflight = new Map<string, Promise<FreshToken>>();

  async token(userId: string, provider: OAuthProvider, force: boolean): Promise<FreshToken> {
    const running = this.inflight.get(provider);
    if (running) return running;
    const p = freshToken(this.env, userId, provider, force).finally(() => this.inflight.delete(provider));
    this.inflight.set(provider, p);
    return p;
  }
}

export function tokenClient(env: Bindings, userId: string) {
  const stub = env.TOKEN_REFRESHER.get(env.TOKEN_REFRESHER.idFromName(`user:${userId}`));
  return {
    token: (provider: OAuthProvider, force = false) => stub.token(userId, provider, force) as Promise<FreshToken>,
  };
}
