// The requests a person makes now and then (docs/cost.md, "Per request"), for bench/cost.mjs:
// each on a vault of 1,000 entries of its own, sent a few times. A request this bench cannot form
// on its own (one that needs a second person's keys or a browser) is recorded as failed, with why.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { ROOT } from "../../scripts/lib/dev-identity.mjs";
import { b64, benchEntry } from "./harness.mjs";
import { entry, seedThroughApi } from "./cost-routes.mjs";

/**
 * Two requests sent one after the other, answered as one: their costs added up (a passkey's use is
 * a lookup and a push, each its own Worker invocation, so each stays within the per-request limits
 * on its own; the row says what the pair costs together).
 */
async function both(first, second) {
  const a = await first();
  const b = await second();
  const cost = (r) =>
    Object.fromEntries(
      String(r.headers["x-request-cost"] ?? "")
        .split(",")
        .map((p) => p.trim().split("="))
        .filter((p) => p.length === 2),
    );
  const ca = cost(a);
  const cb = cost(b);
  const sum = Object.keys(ca)
    .map((k) => `${k}=${Number(ca[k]) + Number(cb[k] ?? 0)}`)
    .join(", ");
  return { ...b, headers: { ...b.headers, "x-request-cost": sum } };
}

/** The passkey a site's sign-in left in an entry, as the extension stores it (counter raised). */
const withPasskey = (i, extra = {}) => ({
  action: "update",
  id: extra.id,
  clientUpdatedAt: new Date().toISOString(),
  data: {
    name: `Passkey site ${i}`,
    encrypted_data: b64(600),
    wrapped_item_key: b64(40),
    encryption_version: 3,
    has_passkey: true,
    passkey_label: `person${i}@site${i}.example.com`,
  },
});

export async function occasional({ worker, measure, session, dovecot }) {
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
  // A passkey, with the vault as the authenticator (extension/src/passkey-vault.ts): the server
  // sees the page's entries looked up, then the entry saved with the new passkey or the raised
  // sign counter, pushed like any edit. The WebAuthn exchange itself stays in the browser.
  const lookup = (i) =>
    u.call(
      "GET",
      `/api/passwords/match?url=${encodeURIComponent(`https://site${i % 2000}.example.com/login`)}`,
    );
  const push = (mutation) => u.call("POST", "/api/passwords/sync", { mutations: [mutation] });
  await measure(
    "passkey-register",
    "passkey registration (match + push)",
    size,
    (i) =>
      both(
        () => lookup(900 + i),
        () =>
          push({
            action: "create",
            id: `${userId}-passkey-${i + 10}`,
            clientUpdatedAt: new Date().toISOString(),
            data: {
              ...entry({ b64 }, 900 + i),
              encrypted_data: b64(600),
              encryption_version: 3,
              has_passkey: true,
              passkey_label: `person${i}@site${900 + i}.example.com`,
            },
          }),
      ),
    opts,
  );
  await measure(
    "passkey-sign-in",
    "passkey sign-in (match + counter push)",
    size,
    (i) =>
      both(
        () => lookup(800 + i),
        () => push(withPasskey(i, { id: `${userId}-${800 + i + 10}` })),
      ),
    opts,
  );
  // A reset start needs a connected mailbox whose address the reset names (DECISIONS D17), and a
  // device signed in within 300 s: a fresh session of the same person. Without a clientPublicKey
  // the queued task ends at once, before any browser or mailbox is opened (src/domains/reset/
  // consumer.ts), so what follows the answer in the same process is small and no Chromium runs.
  const r = await session(worker.base, userId);
  const email = `${userId}@example.test`;
  const imapPassword = randomBytes(12).toString("base64url");
  dovecot.addUser(email, imapPassword);
  await r.call("POST", "/api/integrations/imap/connect", {
    host: "127.0.0.1",
    port: dovecot.port,
    username: email,
    password: imapPassword,
    tls: false,
  });
  // The mailbox check (src/domains/integrations/imap-proof.ts), finished as test/support/
  // imap-proof.ts finishes it: the check mail the outbox holds is delivered into the mailbox.
  const [{ results }] = JSON.parse(
    execFileSync(
      "npx",
      [
        "wrangler",
        "d1",
        "execute",
        "DB",
        "--local",
        "--persist-to",
        worker.state,
        "--json",
        "--command",
        `SELECT subject, text_body FROM outbound_emails WHERE to_address = '${email}' AND kind = 'integration.imap_verify' ORDER BY created_at DESC LIMIT 1`,
      ],
      { cwd: ROOT, encoding: "utf8", env: { ...process.env, WRANGLER_SEND_METRICS: "false" } },
    ),
  );
  if (!results?.[0]) throw new Error(`no mailbox check was mailed to ${email}`);
  dovecot.appendMessages(email, [
    {
      from: "vault@example.test",
      to: email,
      subject: results[0].subject,
      body: results[0].text_body,
    },
  ]);
  await r.call("POST", "/api/integrations/imap/verify", {});
  await measure(
    "reset-start",
    "reset start",
    size,
    (i) =>
      r.call(
        "POST",
        "/api/tasks/reset",
        {
          serviceUrl: `https://reset${i + 10}.example.com/`,
          email,
          passwordId: `${userId}-${700 + i + 10}`,
        },
        device,
      ),
    opts,
  );
}
