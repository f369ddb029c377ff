/** The registry domain's public surface: other domains and the entry import only this file. */
export { registerRegistryRoutes } from "./routes";
export { resolveService, type ResolvedService } from "./resolve";
export type { PasswordRequirements } from "./schema";
export { activeOverrides } from "./repo";
