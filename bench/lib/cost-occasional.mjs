// The requests a person makes now and then (docs/cost.md, "Per request"), for bench/cost.mjs:
// each on a vault of 1,000 entries of its own, sent a few times. A request this bench cannot form
// on its own (one that needs a second person's keys or a browser) is recorded as failed, with why.
import { b64, benchEntry } from "./harness.mjs";
import { seedThroughApi } from "./cost-routes.mjs";

export async function occasional({ worker, measure, session }) {
  const size = 1000;
  const userId = "cost-occasional";
  const u = await session(worker.base, userId);
  await seedThroughApi({ size, call: u.call, b64, stamp: () => new Date().toISOString() }, userId);
  // Export and reset start refuse an unregistered device: register this one, and send its
  // fingerprint with those requests.
  const fingerprint = "c0".repeat(32);
  await u.call("POST", "/api/devices", { fingerprint, deviceName: "cost bench" });
  const device = { "x-device-fingerprint": fingerprint };
  const opts = { n: 3, warm: 1, routine: false };
  await measure(
    "import-1000",
    "import of 1,000",
    size,
    () =>
      u.call("POST", "/api/passwords/import", {
        provider: "generic",
        entries: Array.from({ length: 1000 }, (_, i) => benchEntry(i)),
      }),
    opts,
  );
  await measure(
    "export",
    "export",
    size,
    () => u.call("GET", "/api/passwords/export", undefined, device),
    opts,
  );
  await measure(
    "link",
    "secure link, create",
    size,
    () =>
      u.call("POST", "/api/links", {
        kind: "text",
        content: b64(12 + 16 + 200),
        expires_in_seconds: 86400,
        max_views: 1,
      }),
    opts,
  );
  let n = 0;
  await measure(
    "share",
    "share an entry (invite)",
    size,
    () =>
      u.call("POST", "/api/sharing", {
        accountId: `${userId}-${n}`,
        recipientEmail: `invitee${n++}@example.test`,
        wrapped_vault_key_invite: b64(96),
        invite_token_salt: b64(16),
      }),
    opts,
  );
  await measure(
    "passkey-sites",
    "passkey sites list",
    size,
    () => u.call("GET", "/api/registry/passkeys"),
    opts,
  );
  await measure(
    "reset-start",
    "reset start",
    size,
    (i) =>
      u.call(
        "POST",
        "/api/tasks/reset",
        {
          serviceUrl: `https://reset${i + 10}.example.com/`,
          passwordId: `${userId}-${700 + i + 10}`,
        },
        device,
      ),
    opts,
  );
}
