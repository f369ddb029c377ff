import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ConfigSchema, loadConfig, type Bindings } from "../../src/env";

// A real P-256 key pair made here, so the check is against what Web Crypto exports (RFC 8292 section 3.2).
async function vapidKeys() {
  const pair = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ])) as CryptoKeyPair;
  const raw = new Uint8Array((await crypto.subtle.exportKey("raw", pair.publicKey)) as ArrayBuffer);
  const jwk = (await crypto.subtle.exportKey("jwk", pair.privateKey)) as JsonWebKey;
  const b64url = (b: Uint8Array) =>
    btoa(String.fromCharCode(...b))
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/=+$/, "");
  return {
    VAPID_PUBLIC_KEY: b64url(raw),
    VAPID_PRIVATE_KEY: jwk.d!,
    VAPID_SUBJECT: "mailto:ops@vault.test",
  };
}

/** The suite's bindings without its own VAPID settings: each case states the ones it means. */
const {
  VAPID_PUBLIC_KEY: _p,
  VAPID_PRIVATE_KEY: _k,
  VAPID_SUBJECT: _s,
  ...base
} = env as unknown as Record<string, unknown>;
const parse = (extra: Record<string, unknown>) => ConfigSchema.safeParse({ ...base, ...extra });

describe("Web Push configuration (fails closed)", () => {
  it("is off when none of the three VAPID settings is present", () => {
    expect(loadConfig({ ...base } as unknown as Bindings).push).toBeNull();
  });

  it("is on with all three valid settings", async () => {
    const keys = await vapidKeys();
    expect(parse(keys).success).toBe(true);
    expect(loadConfig({ ...base, ...keys } as unknown as Bindings).push).toEqual({
      publicKey: keys.VAPID_PUBLIC_KEY,
      privateKey: keys.VAPID_PRIVATE_KEY,
      subject: keys.VAPID_SUBJECT,
    });
  });

  it("accepts an https: subject", async () => {
    expect(
      parse({ ...(await vapidKeys()), VAPID_SUBJECT: "https://vault.test/contact" }).success,
    ).toBe(true);
  });

  it("refuses one setting without the others", async () => {
    const keys = await vapidKeys();
    expect(parse({ VAPID_PUBLIC_KEY: keys.VAPID_PUBLIC_KEY }).success).toBe(false);
    expect(
      parse({ VAPID_PUBLIC_KEY: keys.VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY: keys.VAPID_PRIVATE_KEY })
        .success,
    ).toBe(false);
    expect(() =>
      loadConfig({ ...base, VAPID_SUBJECT: keys.VAPID_SUBJECT } as unknown as Bindings),
    ).toThrow();
  });

  it("refuses malformed keys and subjects", async () => {
    const keys = await vapidKeys();
    // A short point, a first byte other than 0x04 ("C" encodes 0x08), standard base64, a short scalar, an http: subject.
    expect(parse({ ...keys, VAPID_PUBLIC_KEY: keys.VAPID_PUBLIC_KEY.slice(0, 44) }).success).toBe(
      false,
    );
    expect(parse({ ...keys, VAPID_PUBLIC_KEY: "C" + keys.VAPID_PUBLIC_KEY.slice(1) }).success).toBe(
      false,
    );
    expect(parse({ ...keys, VAPID_PRIVATE_KEY: keys.VAPID_PRIVATE_KEY + "==" }).success).toBe(
      false,
    );
    expect(parse({ ...keys, VAPID_PRIVATE_KEY: keys.VAPID_PRIVATE_KEY.slice(0, 20) }).success).toBe(
      false,
    );
    expect(parse({ ...keys, VAPID_SUBJECT: "http://vault.test" }).success).toBe(false);
    expect(parse({ ...keys, VAPID_SUBJECT: "ops@vault.test" }).success).toBe(false);
  });
});
