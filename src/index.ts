import { buildApp } from "./app";
import { purgeExpiredTombstones } from "./domains/sync/purge";
import type { Bindings } from "./env";

export { RateLimiter } from "../durable-objects/rate-limiter";
export { IdempotencyStore } from "../durable-objects/idempotency";
export { RecoveryTimer } from "../durable-objects/recovery-timer";
export { SessionShareRoom } from "../durable-objects/session-share";

const app = buildApp();

export default {
  fetch: app.fetch,
  async scheduled(_controller, env, ctx) {
    ctx.waitUntil(purgeExpiredTombstones(env).then((n) => console.log(`purged ${n} expired sync tombstones`)));
  },
} satisfies ExportedHandler<Bindings>;
