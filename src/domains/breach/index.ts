/** The breach domain's public surface: the Pwned Passwords range, relayed by prefix only. */
export { registerBreachRoutes } from "./routes";
