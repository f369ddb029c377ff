import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { server } from "./support/server";
import { startWebAuthnRp } from "../../test/support/webauthn-rp";
import { base64url } from "../../src/kernel/base64";
import { makeCredential } from "../../core/authenticator/authenticator";
import { pkcs8Of } from "../../core/passkeys/exchange";
import { apiAs } from "./support/api";
import { newUser, signInThroughPage, type BrowserContext } from "./support/browser";
import {
  buildExtension,
  deriveVaultKeys,
  extensionFrame,
  frameText,
  launchWithExtension,
  newProfile,
  openPage,
  pressInFrame,
  seedEntries,
  signedInWithExtension,
  unlockInPopup,
} from "./support/extension";

// Passkeys moved in: a CXF (FIDO Credential Exchange Format) file holding a passkey another
// manager made, imported in the web app (encrypted in the browser), then used through the
// extension to sign in at the relying party that registered it (its library verifies the signature);
// a Bitwarden JSON export's passkeys the same way; and moved out: the vault's password-protected
// CXF export, imported into a fresh account on another profile, whose passkey signs in there.
const PASSPHRASE = "passkey import passphrase";
const base = server().baseUrl;
let rp: Awaited<ReturnType<typeof startWebAuthnRp>>;
let user: Awaited<ReturnType<typeof newUser>>;
let context: BrowserContext;
let second: BrowserContext | undefined;
/** The CXF export the next test imports into a fresh account. */
let exported: { text: string; name: string; password: string } | undefined;

/** A passkey another manager registered for `name` at the site (its library verified it). */
async function registeredElsewhere(name: string) {
  const o = (await (await fetch(rp.url(`/register/options?user=${name}`))).json()) as {
    challenge: string;
    user: { id: string };
  };
  const made = await makeCredential({
    rpId: "localhost",
    origin: new URL(rp.url("/")).origin,
    challenge: base64url.decode(o.challenge),
    user: { id: base64url.decode(o.user.id), name, displayName: name },
    alg: -7,
    discoverable: true,
  });
  const c = made.credential;
  const reg = await fetch(rp.url(`/register/verify?user=${name}`), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      id: c.id,
      rawId: c.id,
      type: "public-key",
      clientExtensionResults: {},
      response: { clientDataJSON: c.clientDataJSON, attestationObject: c.attestationObject },
    }),
  });
  expect(await reg.json()).toEqual({ ok: true });
  return made.passkey;
}

/** Signs in at the site through the extension, choosing `name`'s passkey in its frame. */
async function signInAtSite(ctx: BrowserContext, name: string, counter: number) {
  const page = await openPage(ctx, rp.url("/"));
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  const frame = await extensionFrame(page);
  expect(await frameText(frame)).toContain("Sign in to localhost with a passkey");
  await pressInFrame(frame, new RegExp(name));
  await expect
    .poll(() => page.locator("#status").innerText())
    .toBe(`Signed in as ${name}, counter ${counter}`);
  await page.close();
}

beforeAll(async () => {
  rp = await startWebAuthnRp();
  buildExtension(base);
  user = await newUser("passkey-import");
  await seedEntries(base, user, await deriveVaultKeys(PASSPHRASE, user.sub), [
    { name: "Mail", website: "mail.test", username: "grace", password: "mail-pass" },
  ]);
  context = await signedInWithExtension(base, user.token, PASSPHRASE);
});

afterAll(async () => {
  await second?.close();
  await context?.close();
  await rp?.stop();
});

describe("a CXF file's passkey", () => {
  it("imports in the web app and signs in at its site through the extension", async () => {
    // Another manager registered grace's passkey at the site.
    const o = (await (await fetch(rp.url("/register/options?user=grace"))).json()) as {
      challenge: string;
      user: { id: string };
    };
    const made = await makeCredential({
      rpId: "localhost",
      origin: new URL(rp.url("/")).origin,
      challenge: base64url.decode(o.challenge),
      user: { id: base64url.decode(o.user.id), name: "grace", displayName: "Grace" },
      alg: -7,
      discoverable: true,
    });
    const c = made.credential;
    const reg = await fetch(rp.url("/register/verify?user=grace"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        id: c.id,
        rawId: c.id,
        type: "public-key",
        clientExtensionResults: {},
        response: { clientDataJSON: c.clientDataJSON, attestationObject: c.attestationObject },
      }),
    });
    expect(await reg.json()).toEqual({ ok: true });
    const cxf = {
      version: { major: 1, minor: 0 },
      exporterRpId: "other-manager.example",
      exporterDisplayName: "Other manager",
      timestamp: Math.floor(Date.now() / 1000),
      accounts: [
        {
          id: "YWNj",
          username: "grace",
          email: "grace@example.test",
          collections: [],
          items: [
            {
              id: "aXRlbQ",
              creationAt: 1750000000,
              modifiedAt: 1750000000,
              title: "Passkey site",
              scope: { urls: [rp.url("/")], androidApps: [] },
              credentials: [
                {
                  type: "passkey",
                  credentialId: made.passkey.credential_id,
                  rpId: "localhost",
                  username: "grace",
                  userDisplayName: "Grace",
                  userHandle: made.passkey.user_handle,
                  key: base64url.encode(await pkcs8Of(made.passkey)),
                },
              ],
            },
          ],
        },
      ],
    };

    const app = await context.newPage();
    await app.goto(`${base}/import-export`);
    await app.locator("#import-file").setInputFiles({
      name: "passkeys.cxf.json",
      mimeType: "application/json",
      buffer: Buffer.from(JSON.stringify(cxf)),
    });
    await app.getByRole("button", { name: "Preview" }).click();
    await expect
      .poll(() => app.locator("#import-summary").innerText())
      .toBe(
        "Credential Exchange Format (CXF, logins and passkeys): 1 entry ready (1 kept as they are, 0 changed), 0 skipped.",
      );
    await app.locator("#import-start").click();
    await app.locator('#import-done[data-imported="1"]').waitFor();
    const listed = (await (await apiAs(base, user.token)).get("/api/passwords")).body.data as {
      name: string;
      has_passkey: boolean;
      passkey_label: string | null;
    }[];
    expect(listed.find((e) => e.name === "Passkey site")).toMatchObject({
      has_passkey: true,
      passkey_label: "localhost",
    });
    await app.close();

    const page = await openPage(context, rp.url("/"));
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    const frame = await extensionFrame(page);
    expect(await frameText(frame)).toContain("Sign in to localhost with a passkey");
    await pressInFrame(frame, /grace/);
    await expect
      .poll(() => page.locator("#status").innerText())
      .toBe("Signed in as grace, counter 1");
  });
  it("a Bitwarden JSON export's passkeys land in their logins and sign in at their site", async () => {
    const [hopper, lin] = [await registeredElsewhere("hopper"), await registeredElsewhere("lin")];
    const fido2 = async (p: typeof hopper) => ({
      credentialId: `b64.${p.credential_id}`,
      keyType: "public-key",
      keyAlgorithm: "ECDSA",
      keyCurve: "P-256",
      keyValue: base64url.encode(await pkcs8Of(p)),
      rpId: "localhost",
      userHandle: p.user_handle,
      userName: p.user_name,
      counter: "0",
      rpName: "Passkey site",
      userDisplayName: p.display_name,
      discoverable: "true",
      creationDate: "2025-06-01T10:00:00.000Z",
    });
    const bitwarden = {
      encrypted: false,
      folders: [],
      items: [
        {
          id: "1",
          type: 1,
          name: "Hopper at the site",
          login: {
            uris: [{ uri: rp.url("/"), match: null }],
            username: "hopper",
            password: "hopper-pw",
            fido2Credentials: [await fido2(hopper)],
          },
        },
        {
          id: "2",
          type: 1,
          name: "Lin at the site",
          login: {
            uris: [{ uri: rp.url("/"), match: null }],
            username: null,
            password: null,
            fido2Credentials: [await fido2(lin)],
          },
        },
      ],
    };
    const app = await context.newPage();
    await app.goto(`${base}/import-export`);
    await app.locator("#import-file").setInputFiles({
      name: "bitwarden_export.json",
      mimeType: "application/json",
      buffer: Buffer.from(JSON.stringify(bitwarden)),
    });
    await app.getByRole("button", { name: "Preview" }).click();
    await expect
      .poll(() => app.locator("#import-summary").innerText())
      .toBe(
        "Bitwarden (JSON, password-protected JSON or CSV): 2 entries ready (2 kept as they are, 0 changed), 0 skipped.",
      );
    expect(await app.locator("#import-preview tbody tr").first().innerText()).toContain(
      "1 passkey",
    );
    await app.locator("#import-start").click();
    await app.locator('#import-done[data-imported="2"]').waitFor();
    const listed = (await (await apiAs(base, user.token)).get("/api/passwords")).body.data as {
      name: string;
      has_passkey: boolean;
      passkey_label: string | null;
    }[];
    expect(
      listed
        .filter((e) => e.name.endsWith("at the site"))
        .map((e) => [e.name, e.has_passkey, e.passkey_label])
        .sort(),
    ).toEqual([
      ["Hopper at the site", true, "localhost"],
      ["Lin at the site", true, "localhost"],
    ]);
    await app.close();
    await signInAtSite(context, "hopper", 1);
  });

  it("exports passkeys and logins as a password-protected CXF file", async () => {
    const app = await context.newPage();
    await app.goto(`${base}/import-export`);
    await app.locator("#cxf-password").fill("short");
    await app.locator("#cxf-password-again").fill("short");
    await app.getByRole("button", { name: "Export passkeys and logins (CXF)" }).click();
    await expect
      .poll(() => app.locator("#cxf-error").innerText())
      .toBe("Choose a file password of at least 10 characters");
    const PASSWORD = "file password for the move";
    await app.locator("#cxf-password").fill(PASSWORD);
    await app.locator("#cxf-password-again").fill(PASSWORD);
    const [download] = await Promise.all([
      app.waitForEvent("download"),
      app.getByRole("button", { name: "Export passkeys and logins (CXF)" }).click(),
    ]);
    const text = await readFile((await download.path())!, "utf8");
    // Grace's and hopper's passkeys were used to sign in (counter 1): CXF carries only counter-zero ones.
    await expect
      .poll(() => app.locator("#cxf-status").innerText())
      .toBe(
        "Exported 4 entries with 1 passkey. Left out: 2 passkeys already used to sign in (the format carries only passkeys whose counter is still zero).",
      );
    const file = JSON.parse(text) as Record<string, unknown>;
    expect(file).toMatchObject({
      encrypted: true,
      passwordProtected: true,
      contents: "cxf",
      kdfType: 0,
      kdfIterations: 600000,
    });
    // Nothing of the vault in clear: no name, user, password or key.
    for (const secret of ["hopper-pw", "mail-pass", "Lin at the site", "grace", '"d"'])
      expect(text).not.toContain(secret);
    await app.close();
    exported = { text, name: download.suggestedFilename(), password: PASSWORD };
  });

  it("a fresh account on another profile opens that file with its password, and the passkey signs in there", async () => {
    expect(exported).toBeDefined();
    const { text, name, password: PASSWORD } = exported!;

    const fresh = await newUser("passkey-cxf-move");
    ({ context: second } = await launchWithExtension(newProfile(), base));
    const other = await second.newPage();
    await other.goto(base);
    await signInThroughPage(other, fresh.token, PASSPHRASE);
    await other.goto(`${base}/import-export`);
    await other
      .locator("#import-file")
      .setInputFiles({ name, mimeType: "application/json", buffer: Buffer.from(text) });
    await other.getByRole("button", { name: "Preview" }).click();
    await expect
      .poll(() => other.locator("#import-error").innerText())
      .toBe("This CXF export is protected by a password: enter it to read the file");
    // (A wrong password's refusal is the same code path as the Bitwarden file's, tested in import-export.)
    await other.locator("#import-password").fill(PASSWORD);
    await other.getByRole("button", { name: "Preview" }).click();
    await expect
      .poll(() => other.locator("#import-summary").innerText())
      .toBe(
        "Credential Exchange Format (CXF, logins and passkeys): 4 entries ready (4 kept as they are, 0 changed), 0 skipped.",
      );
    await other.locator("#import-start").click();
    await other.locator('#import-done[data-imported="4"]').waitFor();
    const moved = (await (await apiAs(base, fresh.token)).get("/api/passwords")).body.data as {
      name: string;
      has_passkey: boolean;
    }[];
    expect(moved.map((e) => [e.name, e.has_passkey]).sort()).toEqual([
      ["Hopper at the site", false],
      ["Lin at the site", true],
      ["Mail", false],
      ["Passkey site", false],
    ]);
    await other.close();
    await (await unlockInPopup(second, PASSPHRASE)).close();
    await signInAtSite(second, "lin", 1);
  });
});
