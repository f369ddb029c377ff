import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { server } from "./support/server";
import { startWebAuthnRp } from "../../test/support/webauthn-rp";
import { decodeCbor, type CborMap } from "../../core/authenticator/cbor";
import { newUser, type BrowserContext } from "./support/browser";
import {
  buildExtension,
  deriveVaultKeys,
  extensionFrame,
  frameText,
  openPage,
  pressInFrame,
  seedEntries,
  signedInWithExtension,
} from "./support/extension";

// Ed25519 passkeys through the extension, in real Chromium: a relying party whose library
// (@simplewebauthn/server) accepts EdDSA (-8) alone, so only an Ed25519 key can register there.
const PASSPHRASE = "ed25519 passkey passphrase";
const base = server().baseUrl;
let rp: Awaited<ReturnType<typeof startWebAuthnRp>>;
let context: BrowserContext;

beforeAll(async () => {
  rp = await startWebAuthnRp({ algs: [-8] });
  buildExtension(base);
  const user = await newUser("passkeys-ed25519");
  const keys = await deriveVaultKeys(PASSPHRASE, user.sub);
  await seedEntries(base, user, keys, [
    { name: "Mail", website: "mail.test", username: "grace", password: "mail-pass" },
  ]);
  context = await signedInWithExtension(base, user.token, PASSPHRASE);
});

afterAll(async () => {
  await context?.close();
  await rp?.stop();
});

describe("an Ed25519 passkey through the extension", () => {
  it("registers on a site that takes EdDSA only, then signs in with it, the site verifying each signature and the counter", async () => {
    const page = await openPage(context, rp.url("/?user=grace"));
    const status = page.locator("#status");
    await page.getByRole("button", { name: "Create a passkey" }).click();
    await pressInFrame(await extensionFrame(page), "Save in a new entry");
    await expect.poll(() => status.innerText()).toBe("Registered grace");
    // What the site's library stored: an OKP key for EdDSA on Ed25519 (RFC 9053 §2.2).
    const cose = decodeCbor(rp.accounts.get("grace")!.credentials[0]!.publicKey).value as CborMap;
    expect([cose.get(1), cose.get(3), cose.get(-1)]).toEqual([1, -8, 6]);
    for (const n of [1, 2]) {
      await page.goto(rp.url("/"));
      await page.getByRole("button", { name: "Sign in with a passkey" }).click();
      const frame = await extensionFrame(page);
      expect(await frameText(frame)).toContain("Sign in to localhost with a passkey");
      await pressInFrame(frame, /grace/);
      await expect.poll(() => status.innerText()).toBe(`Signed in as grace, counter ${n}`);
    }
  });
});
