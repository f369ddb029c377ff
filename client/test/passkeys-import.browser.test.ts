import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startWebAuthnRp } from "../../test/support/webauthn-rp";
import { base64url } from "../../src/kernel/base64";
import { makeCredential } from "../src/passkeys/authenticator";
import { pkcs8Of } from "../src/passkeys/exchange";
import { apiAs } from "./support/api";
import { newUser, signInThroughPage, type BrowserContext } from "./support/browser";
import { buildExtension, deriveVaultKeys, extensionFrame, frameText, launchWithExtension, newProfile, openPage, pressInFrame, seedEntries, unlockInPopup } from "./support/extension";

// Passkeys moved in: a CXF (FIDO Credential Exchange Format) file holding a passkey another
// manager made, imported in the web app (encrypted in the browser), then used through the
// extension to sign in at the relying party that registered it (its library verifies the signature).
const PASSPHRASE = "passkey import passphrase";
const base = inject("baseUrl");
let rp: Awaited<ReturnType<typeof startWebAuthnRp>>;
let user: Awaited<ReturnType<typeof newUser>>;
let context: BrowserContext;

beforeAll(async () => {
  rp = await startWebAuthnRp();
  buildExtension(base);
  user = await newUser("passkey-import");
  await seedEntries(base, user, await deriveVaultKeys(PASSPHRASE, user.sub), [{ name: "Mail", website: "mail.test", username: "grace", password: "mail-pass" }]);
  ({ context } = await launchWithExtension(newProfile(), base));
  const app = await context.newPage();
  await app.goto(base);
  await signInThroughPage(app, user.token, PASSPHRASE);
  await app.close();
  await (await unlockInPopup(context, PASSPHRASE)).close();
});

afterAll(async () => {
  await context?.close();
  await rp?.stop();
});

describe("a CXF file's passkey", () => {
  it("imports in the web app and signs in at its site through the extension", async () => {
    // Another manager registered grace's passkey at the site.
    const o = (await (await fetch(rp.url("/register/options?user=grace"))).json()) as { challenge: string; user: { id: string } };
    const made = await makeCredential({ rpId: "localhost", origin: new URL(rp.url("/")).origin, challenge: base64url.decode(o.challenge), user: { id: base64url.decode(o.user.id), name: "grace", displayName: "Grace" }, alg: -7, discoverable: true });
    const c = made.credential;
    const reg = await fetch(rp.url("/register/verify?user=grace"), { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id: c.id, rawId: c.id, type: "public-key", clientExtensionResults: {}, response: { clientDataJSON: c.clientDataJSON, attestationObject: c.attestationObject } }) });
    expect(await reg.json()).toEqual({ ok: true });
    const cxf = {
      version: { major: 1, minor: 0 },
      exporterRpId: "other-manager.example",
      exporterDisplayName: "Other manager",
      timestamp: Math.floor(Date.now() / 1000),
      accounts: [{ id: "YWNj", username: "grace", email: "grace@example.test", collections: [], items: [
        { id: "aXRlbQ", creationAt: 1750000000, modifiedAt: 1750000000, title: "Passkey site", scope: { urls: [rp.url("/")], androidApps: [] }, credentials: [
          { type: "passkey", credentialId: made.passkey.credential_id, rpId: "localhost", username: "grace", userDisplayName: "Grace", userHandle: made.passkey.user_handle, key: base64url.encode(await pkcs8Of(made.passkey)) },
        ] },
      ] }],
    };

    const app = await context.newPage();
    await app.goto(`${base}/import-export`);
    await app.locator("#import-file").setInputFiles({ name: "passkeys.cxf.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(cxf)) });
    await app.getByRole("button", { name: "Preview" }).click();
    await expect.poll(() => app.locator("#import-summary").innerText()).toBe("Credential Exchange Format (CXF, logins and passkeys): 1 entry ready (1 kept as they are, 0 changed), 0 skipped.");
    await app.locator("#import-start").click();
    await app.locator('#import-done[data-imported="1"]').waitFor();
    const listed = (await (await apiAs(base, user.token)).get("/api/passwords")).body.data as { name: string; has_passkey: boolean; passkey_label: string | null }[];
    expect(listed.find((e) => e.name === "Passkey site")).toMatchObject({ has_passkey: true, passkey_label: "localhost" });
    await app.close();

    const page = await openPage(context, rp.url("/"));
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    const frame = await extensionFrame(page);
    expect(await frameText(frame)).toContain("Sign in to localhost with a passkey");
    await pressInFrame(frame, /grace/);
    await expect.poll(() => page.locator("#status").innerText()).toBe("Signed in as grace, counter 1");
  });
});
