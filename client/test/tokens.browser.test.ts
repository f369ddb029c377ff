import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../../core/api";
import { openVaultEntry, readWithToken } from "../../core/vaults";
import { signedInPerson } from "./support/account";
import { screenshot, type Browser } from "./support/browser";
import { base, launch } from "./support/journey";
import { axeViolations, openPath } from "./support/pages";

// Machine tokens in the web app: the person makes a token for a shared vault (shown once), a
// machine reads with it alone (the core's token read, as the command line does) giving a reason,
// the page lists the token's last use and the read with its name and reason, and Revoke stops it:
// the server lists it revoked and refuses the next read. The server is asked what it holds.
let browser: Browser;
let person: Awaited<ReturnType<typeof signedInPerson>>;
let token = "";
const PASSWORD = "pw-deploy-db-7731";

beforeAll(async () => {
  browser = await launch();
  person = await signedInPerson(browser, "tokens");
});

afterAll(async () => {
  await browser?.close();
});

type ServerToken = { id: string; name: string; state: string; last_used_at: string | null };
const serverTokens = async () => (await person.api.get("/api/tokens")).body.tokens as ServerToken[];

describe("machine tokens", () => {
  it("a shared vault with an entry, made in the app", async () => {
    const { page } = person;
    await openPath(page, "/vaults");
    await page.getByLabel("Vault name").fill("Deploy");
    await page.getByRole("button", { name: "Create vault" }).click();
    await page.getByRole("heading", { level: 1, name: "Deploy" }).waitFor();
    const form = page.locator("#vault-entry-form");
    await form.getByLabel("Name", { exact: true }).fill("Database");
    await form.getByLabel("Website").fill("db.example");
    await form.getByLabel("Username", { exact: true }).fill("deploy");
    await form.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await form.getByRole("button", { name: "Add entry" }).click();
    await expect.poll(() => page.locator("#vault-entries").innerText()).toContain("Database");
  });

  it("makes a token, shown once; the server holds it without its secret", async () => {
    const { page } = person;
    await openPath(page, "/tokens");
    await expect
      .poll(() => page.locator("#token-vault option").allInnerTexts())
      .toEqual(["Deploy"]);
    await page.getByLabel("Token name").fill("CI deploy");
    await page.getByLabel("Expires after").selectOption("7");
    await page.getByRole("button", { name: "Make token" }).click();
    await page.locator("#token-made").getByText("shown only once").waitFor();
    token = await page.getByLabel("The new token").inputValue();
    expect(token).toMatch(/^vtk_[0-9a-f-]{36}_[A-Za-z0-9_-]{43}$/);
    await expect
      .poll(() => page.locator("#token-rows tr[data-state=active] .token-name").allInnerTexts())
      .toEqual(["CI deploy"]);
    expect(await page.locator("#token-rows .token-used").innerText()).toBe("Never");
    const listed = await serverTokens();
    expect(listed).toEqual([expect.objectContaining({ name: "CI deploy", state: "active" })]);
    const days =
      (Date.parse((listed[0] as { expires_at?: string }).expires_at!) - Date.now()) / 864e5;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThanOrEqual(7);
    expect(JSON.stringify(listed)).not.toContain(token.slice(-43));
    expect(await axeViolations(page)).toEqual([]);
  });

  it("a machine reads with the token alone; the page shows the last use and the read with name and reason", async () => {
    const view = await readWithToken(base(), token, "nightly build #8");
    expect(view.vaultName).toBe("Deploy");
    const entry = view.entries.find((e) => e.name === "Database")!;
    const secrets = await openVaultEntry(view.keys, view.vaultId, {
      ...entry,
      wrapped_item_key: entry.wrapped_item_key!,
      encrypted_data: entry.encrypted_data!,
    });
    expect(secrets.password).toBe(PASSWORD);
    const { page } = person;
    await openPath(page, "/tokens");
    await expect
      .poll(() => page.locator("#token-reads .read-reason").allInnerTexts())
      .toEqual(["nightly build #8"]);
    expect(await page.locator("#token-reads").innerText()).toContain("CI deploy");
    expect(await page.locator("#token-rows .token-used").innerText()).not.toBe("Never");
    await screenshot(page, "screenshots/tokens-read-log.png");
  });

  it("Revoke stops the token at once: the page and the server say revoked, the next read is refused", async () => {
    const { page } = person;
    // The person's context accepts the question Revoke asks (support/journey.ts).
    await page.locator("#token-rows tr").getByRole("button", { name: "Revoke" }).click();
    await expect
      .poll(() => page.locator("#token-rows .token-state").innerText())
      .toBe("Revoked (by you)");
    expect(await page.locator("#token-rows button").count()).toBe(0);
    expect((await serverTokens())[0]!.state).toBe("revoked");
    const refused = await readWithToken(base(), token, "after revoke").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(401);
    expect((refused as ApiError).body.error).toMatch(/revoked/);
    await openPath(page, "/tokens");
    await expect
      .poll(() => page.locator("#token-reads .read-reason").allInnerTexts())
      .toEqual(["nightly build #8"]);
    expect(await page.locator("#token-rows .token-state").innerText()).toBe("Revoked (by you)");
    await screenshot(page, "screenshots/tokens-revoked.png");
  });
});
