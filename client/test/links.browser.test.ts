import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openEntryTool, signedInPerson, syncedEntry } from "./support/account";
import { launch, screenshot, type Browser, type Page } from "./support/browser";
import { d1, openSection } from "./support/journey";
import { axeViolations, sidewaysScroll } from "./support/pages";
import { stateFiles } from "./support/storage";

// Secure links: the owner creates a link in the web app; a stranger with no account opens it in a
// fresh browser context; views, passphrase, revoke and the incomplete link show clear states; the
// server's storage holds only ciphertext.
let browser: Browser;
let owner: Awaited<ReturnType<typeof signedInPerson>>;
const SECRET = "wifi: tangerine-88-Zq7!";
const FILE = Buffer.from(`Lease contract ${"clause ".repeat(5000)} signed: K-4471-secret`);

beforeAll(async () => {
  browser = await launch();
  owner = await signedInPerson(browser, "links");
  await openSection(owner.page, "Secure links");
});

afterAll(async () => {
  await browser?.close();
});

async function create(opts: {
  text?: string;
  file?: { name: string; buffer: Buffer; mimeType?: string };
  views?: number;
  passphrase?: string;
  recipients?: string;
  label?: string;
}): Promise<string> {
  const { page } = owner;
  const form = page.locator("#link-form");
  if (opts.file) {
    await form.getByLabel("File", { exact: true }).check();
    await form.getByLabel("File (up to 25 MB)").setInputFiles({
      name: opts.file.name,
      mimeType: opts.file.mimeType ?? "text/plain",
      buffer: opts.file.buffer,
    });
  } else {
    await form.getByLabel("Text", { exact: true }).check();
    await form.getByLabel("Secret text").fill(opts.text ?? SECRET);
  }
  await form.getByLabel("Maximum views (1–100)").fill(String(opts.views ?? 1));
  await form.getByLabel(/^Passphrase/).fill(opts.passphrase ?? "");
  await form.getByLabel(/^Only these email addresses/).fill(opts.recipients ?? "");
  await form.getByLabel(/^Label/).fill(opts.label ?? "");
  // The box of the last link, if this mount of the section made one (a locator waits for its element).
  const shown = async () =>
    (await page.locator("#link-url").count()) ? page.locator("#link-url").inputValue() : "";
  const before = await shown();
  await form.getByRole("button", { name: "Create link" }).click();
  await expect.poll(shown).not.toBe(before);
  return shown();
}

/** A stranger: a fresh browser context with no account, cookies or service worker. */
async function stranger(width = 1280): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width, height: 800 },
    serviceWorkers: "block",
    acceptDownloads: true,
  });
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const page = await context.newPage();
  page.on("pageerror", (e) => console.error(`page error: ${e.message}`));
  return page;
}

/** The link as its owner's list shows it (API), for what the server counted. */
const ownerView = async (id: string) =>
  ((await owner.api.get("/api/links")).body as { links: { id: string }[] }).links.find(
    (l) => l.id === id,
  );

const status = (page: Page) => page.locator("#link-status").innerText();

describe("secure links", () => {
  let first = "";

  it("the open page of a new text link is axe-clean at 360 px, and looking costs no view", async () => {
    first = await create({ views: 1 });
    expect(first).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/l\/[A-Za-z0-9_-]{22}#[A-Za-z0-9_-]{43}$/);
    const page = await stranger(360);
    await page.goto(first);
    await page.getByRole("button", { name: "Show the secret" }).waitFor();
    expect(await status(page)).toBe("Ready to open.");
    expect(await axeViolations(page)).toEqual([]);
    expect(await sidewaysScroll(page)).toBeNull();
    await screenshot(page, "screenshots/links-open-360.png");
    const id = new URL(first).pathname.split("/")[2]!;
    expect(await ownerView(id)).toMatchObject({ views_used: 0, state: "active" });
  });

  it("opens once in a fresh browser with no account, then says it is used up; the owner sees the view", async () => {
    const url = first;
    const page = await stranger(1280);
    const sent: string[] = [];
    page.on("request", (r) => sent.push(r.url() + " " + (r.headers().referer ?? "")));
    await page.goto(url);
    await page.getByRole("button", { name: "Show the secret" }).click();
    await expect.poll(() => page.locator("#link-fields .link-value").innerText()).toBe(SECRET);
    await page.getByRole("button", { name: "Copy Secret" }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(SECRET);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, "screenshots/links-opened-1280.png");
    // The key never left the page: no request carried it, in its URL or a Referer.
    const key = url.split("#")[1]!;
    expect(sent.filter((s) => s.includes(key))).toEqual([]);
    expect(page.url()).not.toContain("#");
    const again = await stranger();
    await again.goto(url);
    await expect
      .poll(() => status(again))
      .toContain("already been opened as many times as the sender allowed");
    expect(await again.locator("#link-ask").isHidden()).toBe(true);
    // The owner's list, loaded again, shows the view; the owner was told, without the content.
    await openSection(owner.page, "Vault");
    await openSection(owner.page, "Secure links");
    const id = new URL(url).pathname.split("/")[2]!;
    await expect
      .poll(() => owner.page.locator(`#links li[data-id="${id}"]`).innerText())
      .toContain("Views 1 of 1");
    const notes = (await owner.api.get("/api/notifications")).body as {
      notifications: { type: string; body: string }[];
    };
    const opened = notes.notifications.find((n) => n.type === "secure_link_opened");
    expect(opened?.body).toMatch(/1 of 1 views used/);
    expect(JSON.stringify(notes)).not.toContain("tangerine");
  });

  it("a passphrase link refuses a wrong passphrase, counting no view, and opens with the right one", async () => {
    const url = await create({ text: "door code 9911", views: 2, passphrase: "blue whale song" });
    const page = await stranger();
    await page.goto(url);
    await page.getByLabel("Passphrase").fill("green whale");
    await page.getByRole("button", { name: "Show the secret" }).click();
    await expect
      .poll(() => page.locator("#link-error").innerText())
      .toBe("Wrong passphrase. 4 attempts left before the link locks.");
    await page.getByLabel("Passphrase").fill("blue whale song");
    await page.getByRole("button", { name: "Show the secret" }).click();
    await expect
      .poll(() => page.locator("#link-fields .link-value").innerText())
      .toBe("door code 9911");
    const id = new URL(url).pathname.split("/")[2]!;
    expect(await ownerView(id)).toMatchObject({
      views_used: 1,
      max_views: 2,
      state: "active",
      has_passphrase: true,
    });
    expect(
      await (await fetch(`${new URL(url).origin}/api/links/public/${id}`)).json(),
    ).toMatchObject({ passphrase: { attempts_left: 4 }, views_left: 1 });
  });

  it("a file link downloads the same bytes and name", async () => {
    const url = await create({ file: { name: "lease.txt", buffer: FILE }, views: 1 });
    const page = await stranger();
    await page.goto(url);
    await page.getByRole("button", { name: "Show the secret" }).click();
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Download lease.txt" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("lease.txt");
    expect(readFileSync((await download.path())!).equals(FILE)).toBe(true);
  });

  it("a file the sender typed as HTML is handed out as bytes to save, never as a page of this origin", async () => {
    const html = Buffer.from(
      "<script>parent.postMessage(document.cookie, '*')</script><h1>invoice</h1>",
    );
    const url = await create({
      file: { name: "invoice.html", buffer: html, mimeType: "text/html" },
      views: 1,
    });
    const page = await stranger();
    // The type the page gives the file's object URL (a blob: URL is this origin's, and would render as one).
    await page.addInitScript(() => {
      const made: string[] = [];
      (window as unknown as { blobTypes: string[] }).blobTypes = made;
      const original = URL.createObjectURL.bind(URL);
      URL.createObjectURL = (obj: Blob | MediaSource) => {
        if (obj instanceof Blob) made.push(obj.type);
        return original(obj);
      };
    });
    await page.goto(url);
    await page.getByRole("button", { name: "Show the secret" }).click();
    const link = page.getByRole("link", { name: "Download invoice.html" });
    await link.waitFor();
    expect(
      await page.evaluate(() => (window as unknown as { blobTypes: string[] }).blobTypes),
    ).toEqual(["application/octet-stream"]);
    expect(await link.getAttribute("download")).toBe("invoice.html");
    const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
    expect(readFileSync((await download.path())!).equals(html)).toBe(true);
  });

  it("a revoked link and an incomplete link say so", async () => {
    const url = await create({ text: "revoke me", views: 3 });
    const id = new URL(url).pathname.split("/")[2]!;
    const card = owner.page.locator(`#links li[data-id="${id}"]`);
    await card.getByRole("button", { name: "Revoke" }).click();
    await expect.poll(() => card.getAttribute("data-state")).toBe("revoked");
    const page = await stranger();
    await page.goto(url);
    await expect.poll(() => status(page)).toBe("The sender revoked this link.");
    await page.goto(url.split("#")[0]!);
    await expect
      .poll(() => status(page))
      .toContain("This link is incomplete: the part after # is missing");
    await screenshot(page, "screenshots/links-incomplete.png");
  });

  it("an entry's chosen fields go out by link from its detail view", async () => {
    const { page } = owner;
    await openSection(page, "Vault");
    await syncedEntry(page, owner.api, "Router");
    const tool = await openEntryTool(page, "Router", "share-link");
    await tool.getByLabel("Website", { exact: true }).uncheck();
    await tool.getByRole("button", { name: "Create link" }).click();
    const url = await tool.locator("#share-link-url").inputValue();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, "screenshots/links-entry-tool.png");
    const stranger1 = await stranger(360);
    await stranger1.goto(url);
    await stranger1.getByRole("button", { name: "Show the secret" }).click();
    await expect
      .poll(() => stranger1.locator("#link-fields .name").allInnerTexts())
      .toEqual(["Name", "Username", "Password"]);
    expect(await stranger1.locator("#link-fields .link-value").allInnerTexts()).toEqual([
      "Router",
      "alice",
      "pw-Router",
    ]);
    expect(await sidewaysScroll(stranger1)).toBeNull();
    await screenshot(stranger1, "screenshots/links-entry-opened-360.png");
  });

  it("a link for named addresses opens in a fresh browser only with the code mailed to a listed one; the owner's label is sealed", async () => {
    const kim = `Kim.${Date.now()}@example.org`;
    await openSection(owner.page, "Secure links");
    const url = await create({
      text: "gate code 5150",
      views: 2,
      recipients: kim,
      label: "Gate code for Kim",
    });
    const id = new URL(url).pathname.split("/")[2]!;
    // The owner's list opens the label in the browser; the server holds only its ciphertext.
    const card = owner.page.locator(`#links li[data-id="${id}"]`);
    await expect.poll(() => card.innerText()).toContain("Gate code for Kim");
    expect(await card.innerText()).toContain("1 recipient by email");
    const [row] = d1<{
      encrypted_label: string;
      recipient_hashes: string;
      recipient_count: number;
    }>(
      `SELECT encrypted_label, recipient_hashes, recipient_count FROM secure_links WHERE id = '${id}'`,
    );
    expect(row!.recipient_count).toBe(1);
    expect(JSON.parse(row!.encrypted_label)).toMatchObject({
      iv: expect.any(String),
      ciphertext: expect.any(String),
    });
    expect(JSON.stringify(row).toLowerCase()).not.toMatch(/gate code|kim\./);

    const page = await stranger(360);
    const origin = new URL(url).origin;
    await page.goto(url);
    await page.getByLabel("Your email address").waitFor();
    await page.getByRole("button", { name: "Show the secret" }).click();
    await expect
      .poll(() => page.locator("#link-error").innerText())
      .toBe("Enter your email address and ask for a code first.");
    // An address not on the list is answered the same way, and mailed nothing.
    await page.getByLabel("Your email address").fill(`not-${kim}`);
    await page.getByRole("button", { name: "Email me a code" }).click();
    await expect
      .poll(() => page.locator("#link-code-sent").innerText())
      .toContain("If this address may open the link, a 6-digit code is on its way");
    await page.getByLabel("Your email address").fill(kim);
    await page.getByRole("button", { name: "Send a new code" }).click();
    // The recipient's mail, as the development mail page shows what would have been sent.
    const mailbox = await page.context().newPage();
    const mailText = async () => {
      await mailbox.goto(`${origin}/dev/mail`);
      const mail = mailbox
        .locator("article", { hasText: kim.toLowerCase() })
        .filter({ hasText: "secure_link.code" });
      return (await mail.count()) ? mail.first().innerText() : "";
    };
    await expect.poll(mailText, { timeout: 15_000 }).toMatch(/one-time code is \d{6}/);
    const code = /one-time code is (\d{6})/.exec(await mailText())![1]!;
    expect(await mailbox.locator("article", { hasText: `not-${kim}`.toLowerCase() }).count()).toBe(
      0,
    );
    await mailbox.close();
    expect(await ownerView(id)).toMatchObject({ views_used: 0 });
    await page.getByLabel("Code from the email").fill(code === "000000" ? "111111" : "000000");
    await page.getByRole("button", { name: "Show the secret" }).click();
    await expect
      .poll(() => page.locator("#link-error").innerText())
      .toBe("Wrong code. 4 attempts left for this code.");
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, "screenshots/links-email-code-step-360.png");
    expect(await ownerView(id)).toMatchObject({ views_used: 0 });
    await page.getByLabel("Code from the email").fill(code);
    await page.getByRole("button", { name: "Show the secret" }).click();
    await expect
      .poll(() => page.locator("#link-fields .link-value").innerText())
      .toBe("gate code 5150");
    expect(await axeViolations(page)).toEqual([]);
    expect(await sidewaysScroll(page)).toBeNull();
    await screenshot(page, "screenshots/links-email-code-opened-360.png");
    expect(await ownerView(id)).toMatchObject({ views_used: 1, recipients: 1 });
  });

  it("the server's storage (D1 and R2) holds none of the secrets' bytes", async () => {
    const files = stateFiles();
    expect(files.some((f) => f.includes("r2"))).toBe(true);
    const needles = [
      SECRET,
      "door code 9911",
      "K-4471-secret",
      "lease.txt",
      "invoice.html",
      "blue whale song",
      "pw-Router",
      "gate code 5150",
      "Gate code for Kim",
    ].map((s) => Buffer.from(s));
    for (const f of files) {
      const bytes = readFileSync(f);
      for (const n of needles) expect(bytes.includes(n), `${n} in ${f}`).toBe(false);
    }
    // This owner's seven links were in the scan (other files of the suite make links of their own).
    expect(((await owner.api.get("/api/links")).body as { links: unknown[] }).links).toHaveLength(
      7,
    );
  });
});
