import type { Bindings, Config } from "../env";
import type { AuthUser } from "../kernel/context";

export type { AuthUser, RequestMeta } from "../kernel/context";
export { requestMeta } from "../kernel/context";

export type AppEnv = {
  Bindings: Bindings;
  Variables: {
    config: Config;
    user: AuthUser;
  };
};
