import type { D1Migration } from "cloudflare:test";
import type { Bindings } from "../../src/env";

declare global {
  namespace Cloudflare {
    interface Env extends Bindings {
      TEST_MIGRATIONS: D1Migration[];
      TEST_IDP_KEYS: string;
      TEST_SITE_URL: string;
      TEST_ALIAS_PROVIDER_URL: string;
      TEST_RESET_SITE: string;
      TEST_RESET_IMAP: string;
      TEST_DISCOVERY_IMAP: string;
      TEST_MAIL_PROVIDER_URL: string;
      TEST_PUSH_SERVICE_URL: string;
      TEST_PWNED_RANGE_URL: string;
    }
  }
}
