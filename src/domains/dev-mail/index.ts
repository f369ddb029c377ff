/** The development mail page's public surface: the entry imports only this file. */
export { registerDevMailRoutes } from "./routes";
