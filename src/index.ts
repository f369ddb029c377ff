import { buildApp } from "./app";
import type { Bindings } from "./env";

export { RateLimiter } from "../durable-objects/rate-limiter";
export { IdempotencyStore } from "../durable-objects/idempotency";
export { TokenRefresher } from "../durable-objects/token-refresher";

const app = buildApp();

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Bindings>;
