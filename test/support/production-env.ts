import { env } from "cloudflare:test";

/**
 * The test worker's bindings as a complete production configuration (DECISIONS D18): a real mail
 * transport and no private outbound destinations, for calling `buildApp().request(path, {}, vars)`.
 */
export const productionVars = {
  ...env,
  ENVIRONMENT: "production",
  MAIL_TRANSPORT: "http",
  MAIL_API_URL: "https://mail.example.test/emails",
  MAIL_API_KEY: "key-1",
  MAIL_FROM: "vault@example.test",
  OUTBOUND_ALLOW_PRIVATE: undefined,
};
