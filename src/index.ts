import { buildApp } from "./app";
import type { Bindings } from "./env";
import { consumeResetBatch, type ResetMessage } from "./domains/reset/consumer";

export { RateLimiter } from "../durable-objects/rate-limiter";
export { IdempotencyStore } from "../durable-objects/idempotency";
export { TokenRefresher } from "../durable-objects/token-refresher";
export { TaskProgress } from "../durable-objects/task-progress";

const app = buildApp();

export default {
  fetch: app.fetch,
  queue: (batch, env) => consumeResetBatch(batch as MessageBatch<ResetMessage>, env),
} satisfies ExportedHandler<Bindings, ResetMessage>;
