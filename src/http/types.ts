import type { Bindings, Config } from "../env";
import type { AuthUser } from "../kernel/context";
import type { CostMeter } from "./cost-meter";
import type { Timing } from "./timing";

export type { AuthUser, RequestMeta } from "../kernel/context";
export { requestMeta } from "../kernel/context";

export type AppEnv = {
  Bindings: Bindings;
  Variables: {
    config: Config;
    /** The request's id, answered in X-Request-Id and carried by its log lines (http/request-log.ts). */
    requestId: string;
    user: AuthUser;
    /** How `user` was authenticated: set by authenticate() with the user. */
    credential: "bearer" | "cookie";
    /** Present only when Server-Timing is on. */
    timing?: Timing;
    /** Present only when COST_COUNTERS is on. */
    cost?: CostMeter;
  };
};
