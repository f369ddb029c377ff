import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deriveVaultKeys } from "../../core/crypto/crypto";
import { openFor } from "./support/api";
import { signedInPerson } from "./support/account";
import {
  launch,
  openEntry,
  openNewEntry,
  screenshot,
  waitForPending,
  type Browser,
} from "./support/browser";
import { d1 } from "./support/journey";
import { checkEverywhere } from "./support/pages";

// SSH keys as a kind of entry in the web app, as a Bitwarden user expects: made in the browser or
// imported from OpenSSH's own file, saved sealed, shown with the public line and fingerprint, the
// private key masked. OpenSSH's own ssh-keygen is the judge of what the page shows.
const PASSPHRASE = "ssh key web passphrase 16";
let browser: Browser;
let person: Awaited<ReturnType<typeof signedInPerson>>;
const dir = mkdtempSync(join(tmpdir(), "ssh-web-"));

beforeAll(async () => {
  browser = await launch();
  person = await signedInPerson(browser, "ssh-web", PASSPHRASE);
});

afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What `ssh-keygen -l` makes of a public key line: its SHA-256 fingerprint. */
function keygenFingerprint(publicLine: string): string {
  const file = join(dir, `pub-${Math.random().toString(36).slice(2)}.pub`);
  writeFileSync(file, `${publicLine}\n`);
  const out = execFileSync("ssh-keygen", ["-l", "-f", file], { encoding: "utf8" });
  expect(out).toMatch(/^256 SHA256:\S+ .*\(ED25519\)\n$/);
  return out.split(" ")[1]!;
}

const detail = (field: string) =>
  person.page.locator(`#revealed-fields dd[data-field="ssh.${field}"]`);

async function chooseSshKind(name: string) {
  const { page } = person;
  await openNewEntry(page);
  await page.getByLabel("Name", { exact: true }).fill(name);
  await page.getByLabel("Entry kind", { exact: true }).selectOption("ssh_key");
  // The login's rows go, as for the other kinds that are not logins; the key's part comes.
  for (const label of ["Website", "Username", "Password"])
    expect([label, await page.getByLabel(label, { exact: true }).isVisible()]).toEqual([
      label,
      false,
    ]);
  await page.getByRole("group", { name: "SSH key" }).waitFor();
}

async function save() {
  const { page } = person;
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await page.locator("#entry-dialog[open]").waitFor({ state: "hidden" });
  await waitForPending(page, 0);
}

/** The server's entry by name, opened with the person's keys, and its stored row as D1 holds it. */
async function onServer(name: string) {
  const { api, user } = person;
  const row = (await api.entries()).get(name);
  expect(row, `${name} on the server`).toBeDefined();
  const keys = await deriveVaultKeys(PASSPHRASE, user.sub);
  const stored = d1(`SELECT * FROM passwords WHERE id = '${row.id}'`);
  expect(stored).toHaveLength(1);
  return { secrets: await openFor(keys, user.sub, row), stored: JSON.stringify(stored[0]) };
}

describe("SSH keys in the web app", () => {
  it("generates an Ed25519 key in the form; the detail shows what ssh-keygen reads, the server holds it sealed", async () => {
    const { page } = person;
    await chooseSshKind("Deploy key");
    await page.getByRole("button", { name: "Generate key", exact: true }).click();
    await expect.poll(() => page.locator("#f-ssh-fingerprint").innerText()).toMatch(/^SHA256:/);
    const formPublic = await page.locator("#f-ssh-public").innerText();
    expect(formPublic).toMatch(/^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI\S+$/);
    await screenshot(page, "screenshots/ssh-key-form-generated-1280.png");
    // Phone and desktop, light and dark: no sideways scroll, no axe violation, no dark on dark.
    expect(await checkEverywhere(page, "ssh-key-form")).toEqual([]);
    await save();

    await openEntry(page, "Deploy key");
    expect(await page.locator('#revealed-fields dd[data-field="kind"]').innerText()).toBe(
      "SSH key",
    );
    // A key is no website account: no one-time codes, password reset or session share for it.
    await expect
      .poll(() => page.locator("#detail-tabs [role=tab]").allInnerTexts())
      .toEqual(["Details", "Attachments", "Share by link"]);
    expect(await page.locator("#panel-details #totp").count()).toBe(0);
    const shownPublic = await detail("public_key").innerText();
    const shownPrint = await detail("fingerprint").innerText();
    expect(shownPublic).toBe(formPublic);
    expect(keygenFingerprint(shownPublic)).toBe(shownPrint);
    // The private key is masked until shown, as a password is; shown, it is the key OpenSSH reads.
    expect(await detail("private_key").getAttribute("data-masked")).toBe("true");
    expect(await detail("private_key").innerText()).not.toContain("PRIVATE KEY");
    await page.getByRole("button", { name: "Show private key", exact: true }).click();
    const shownPrivate = await detail("private_key").innerText();
    expect(shownPrivate).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----\n/);
    const keyFile = join(dir, "generated");
    writeFileSync(keyFile, `${shownPrivate.trim()}\n`, { mode: 0o600 });
    expect(execFileSync("ssh-keygen", ["-y", "-f", keyFile], { encoding: "utf8" }).trim()).toBe(
      shownPublic,
    );
    await page.getByRole("button", { name: "Hide private key", exact: true }).click();
    expect(await detail("private_key").getAttribute("data-masked")).toBe("true");
    await page.getByRole("button", { name: "Copy public key", exact: true }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(shownPublic);
    await page.getByRole("button", { name: "Copy fingerprint", exact: true }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(shownPrint);
    await screenshot(page, "screenshots/ssh-key-detail-1280.png");
    expect(await checkEverywhere(page, "ssh-key-detail")).toEqual([]);

    const { secrets, stored } = await onServer("Deploy key");
    expect(secrets.kind).toBe("ssh_key");
    expect(secrets.ssh).toMatchObject({ public_key: shownPublic, fingerprint: shownPrint });
    expect(secrets.ssh!.private_key.trim()).toBe(shownPrivate.trim());
    expect(stored).not.toContain("PRIVATE KEY");
    expect(stored).not.toContain(shownPublic.split(" ")[1]);
  });

  it("imports a key ssh-keygen made, pasted; its fingerprint is ssh-keygen's", async () => {
    const { page } = person;
    const file = join(dir, "id_ed25519");
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "me@laptop", "-f", file]);
    const publicLine = readFileSync(`${file}.pub`, "utf8").trim();
    const print = keygenFingerprint(publicLine);
    await chooseSshKind("Laptop key");
    // A real paste is read at once: the form shows the key's fingerprint, and the private key
    // leaves the box.
    const box = page.getByLabel("Import key: paste the private key", { exact: true });
    await page.evaluate((t) => navigator.clipboard.writeText(t), readFileSync(file, "utf8"));
    await box.focus();
    await page.keyboard.press("Control+V");
    await expect.poll(() => page.locator("#f-ssh-fingerprint").innerText()).toBe(print);
    expect(await box.inputValue()).toBe("");
    await save();

    await openEntry(page, "Laptop key");
    expect(await detail("public_key").innerText()).toBe(publicLine);
    expect(await detail("fingerprint").innerText()).toBe(print);
    const { secrets, stored } = await onServer("Laptop key");
    expect([secrets.kind, secrets.ssh?.fingerprint]).toEqual(["ssh_key", print]);
    // The key kept is the one imported: OpenSSH reads the stored file back to the same public line.
    const back = join(dir, "imported");
    writeFileSync(back, secrets.ssh!.private_key, { mode: 0o600 });
    expect(execFileSync("ssh-keygen", ["-y", "-f", back], { encoding: "utf8" }).trim()).toBe(
      publicLine,
    );
    expect(stored).not.toContain("PRIVATE KEY");
  });

  it("a malformed paste or file says why under the box and saves nothing", async () => {
    const { page, api } = person;
    const before = [...(await api.entries()).keys()].sort();
    expect(before).toEqual(["Deploy key", "Laptop key"]);
    await chooseSshKind("Work key");
    const box = page.getByLabel("Import key: paste the private key", { exact: true });
    await box.fill(
      "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----\n",
    );
    await page.getByRole("button", { name: "Save", exact: true }).click();
    const message = page.locator("#f-ssh-error");
    await expect.poll(() => message.innerText()).toContain("Not an OpenSSH private key file");
    expect(await box.getAttribute("aria-invalid")).toBe("true");
    expect(await page.locator("#entry-dialog[open]").count()).toBe(1);
    await screenshot(page, "screenshots/ssh-key-malformed-1280.png");

    // A chosen file that is cut short says so, with its name.
    const key = readFileSync(join(dir, "id_ed25519"), "utf8").split("\n");
    await page.locator("#f-ssh-file").setInputFiles({
      name: "id_short",
      mimeType: "application/octet-stream",
      buffer: Buffer.from([key[0], key[1], key[key.length - 2], ""].join("\n")),
    });
    await expect.poll(() => message.innerText()).toMatch(/^id_short: The key is cut short/);
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await expect.poll(() => message.innerText()).toMatch(/cut short/);

    // Emptied, with no key at all: Save asks for one.
    await box.fill("");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await expect
      .poll(() => message.innerText())
      .toBe("Generate a key, or import one, before saving.");
    expect(await page.locator("#entry-dialog[open]").count()).toBe(1);
    expect(await page.locator("#pending").getAttribute("data-count")).toBe("0");
    expect([...(await api.entries()).keys()].sort()).toEqual(before);
    // Put right, it saves, even when Save comes while the box is still being read (leaving the
    // box reads it, and Save reads it again: both in one task here, so both reads are in flight).
    await box.fill(readFileSync(join(dir, "id_ed25519"), "utf8"));
    await page.evaluate(() => {
      document.getElementById("f-ssh-private")!.dispatchEvent(new Event("change"));
      (document.getElementById("entry-form") as HTMLFormElement).requestSubmit();
    });
    await page.locator("#entry-dialog[open]").waitFor({ state: "hidden" });
    await waitForPending(page, 0);
    const { secrets } = await onServer("Work key");
    expect(secrets.ssh?.fingerprint).toBe(
      keygenFingerprint(readFileSync(join(dir, "id_ed25519.pub"), "utf8").trim()),
    );
  });

  it("fits a 390 px phone: the detail's rows, the private key shown, scroll only downwards", async () => {
    const { page } = person;
    await page.setViewportSize({ width: 390, height: 844 });
    await openEntry(page, "Deploy key");
    await page.getByRole("button", { name: "Show private key", exact: true }).click();
    const overflow = await page.evaluate(() => {
      const width = document.documentElement.clientWidth;
      const rows = Array.from(document.querySelectorAll<HTMLElement>("#revealed-fields > *"));
      return {
        scroll: document.documentElement.scrollWidth - width,
        outside: rows
          .filter((r) => r.getBoundingClientRect().right > width + 0.5)
          .map((r) => r.dataset.field ?? r.textContent),
      };
    });
    expect(overflow).toEqual({ scroll: 0, outside: [] });
    expect(await detail("public_key").isVisible()).toBe(true);
    await screenshot(page, "screenshots/ssh-key-detail-390.png");
  });
});
