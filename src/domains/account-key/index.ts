/** The account-key domain's public surface: the entry imports only this file. */
export { registerAccountKeyRoutes } from "./routes";
