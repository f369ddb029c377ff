import { buildApp } from "./app";
import { purgeEndedSessionShares } from "./domains/session-shares/purge";
import { purgeExpiredTombstones } from "./domains/sync/purge";
import type { Bindings } from "./env";
import { consumeResetBatch, type ResetMessage } from "./domains/reset/consumer";

export { RateLimiter } from "../durable-objects/rate-limiter";
export { IdempotencyStore } from "../durable-objects/idempotency";
export { RecoveryTimer } from "../durable-objects/recovery-timer";
export { SessionShareRoom } from "../durable-objects/session-share";
export { TokenRefresher } from "../durable-objects/token-refresher";
export { TaskProgress } from "../durable-objects/task-progress";

const app = buildApp();

export default {
  fetch: app.fetch,
  async scheduled(_controller, env, ctx) {
    ctx.waitUntil(purgeExpiredTombstones(env).then((n) => console.log(`purged ${n} expired sync tombstones`)));
    ctx.waitUntil(purgeEndedSessionShares(env).then((n) => console.log(`purged ${n} ended session shares`)));
  },
  queue: (batch, env) => consumeResetBatch(batch as MessageBatch<ResetMessage>, env),
} satisfies ExportedHandler<Bindings, ResetMessage>;
