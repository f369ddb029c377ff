/** The reset domain's public surface: other domains and the entry import only this file. */
export { registerResetRoutes } from "./routes";
export { consumeResetBatch, type ResetMessage } from "./consumer";
