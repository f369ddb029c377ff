import { RecoveryTimerBase, type TimerTick } from "../durable-objects/recovery-timer";
import { SessionShareRoomBase } from "../durable-objects/session-share/room";
import { TokenRefresherBase, type TokenSource } from "../durable-objects/token-refresher";
import { buildApp } from "./app";
import { runDeadManSwitchTimer } from "./domains/dead-man-switch";
import { runEmergencyTimer } from "./domains/emergency";
import { freshToken, type FreshToken } from "./domains/integrations";
import type { OAuthProvider } from "./domains/integrations";
import { consumeMailBatch, MAIL_QUEUE_NAME, type MailMessage } from "./domains/notifications";
import { consumeResetBatch, type ResetMessage } from "./domains/reset";
import { sessionShareRoomHooks } from "./domains/session-shares";
import { purgeExpiredTombstones } from "./domains/sync";
import { purgeEndedSessionShares } from "./domains/session-shares";
import { globalDb } from "./db/client";
import { loadConfig, type Bindings } from "./env";

export { RateLimiter } from "../durable-objects/rate-limiter";
export { IdempotencyStore } from "../durable-objects/idempotency";
export { TaskProgress } from "../durable-objects/task-progress";

/*
 * Durable Objects are leaves (durable-objects/): what they run that is a domain's is registered
 * here, the one module that knows both sides.
 */
const recoveryTick: TimerTick<Bindings> = (env, target, now) =>
  target.kind === "dead_man_switch" ? runDeadManSwitchTimer(env, target.userId, now) : runEmergencyTimer(env, target.contactId, target.ownerId, now);

export class RecoveryTimer extends RecoveryTimerBase<Bindings> {
  protected tick = recoveryTick;
}

const tokenSource: TokenSource<Bindings, FreshToken> = (env, userId, provider, force) => freshToken(env, userId, provider as OAuthProvider, force);

export class TokenRefresher extends TokenRefresherBase<Bindings, FreshToken> {
  protected source = tokenSource;
}

export class SessionShareRoom extends SessionShareRoomBase<Bindings> {
  protected roomHooks = sessionShareRoomHooks;
}

const app = buildApp();

export default {
  fetch: app.fetch,
  async scheduled(_controller, env, ctx) {
    ctx.waitUntil(purgeExpiredTombstones(env).then((n) => console.log(`purged ${n} expired sync tombstones`)));
    ctx.waitUntil(purgeEndedSessionShares(env).then((n) => console.log(`purged ${n} ended session shares`)));
  },
  // One consumer per queue of wrangler.toml, told apart by the queue's name.
  queue: (batch, env) =>
    batch.queue === MAIL_QUEUE_NAME
      ? consumeMailBatch(batch as MessageBatch<MailMessage>, loadConfig(env), globalDb(env))
      : consumeResetBatch(batch as MessageBatch<ResetMessage>, env),
} satisfies ExportedHandler<Bindings, ResetMessage | MailMessage>;
