/** The shards domain's public surface: the entry imports only this file. */
export { registerShardRoutes } from "./routes";
