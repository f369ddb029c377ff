import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInPerson } from "./support/account";
import { launch, screenshot, type Browser } from "./support/browser";
import { openSection } from "./support/journey";

// The notification centre: unread count, mark read, mark all read, clear all; a notification the
// server writes while the page is open (here: a new device of the account) appears without a reload.
let browser: Browser;
let person: Awaited<ReturnType<typeof signedInPerson>>;

beforeAll(async () => {
  browser = await launch();
  person = await signedInPerson(browser, "notify");
});

afterAll(async () => {
  await browser?.close();
});

const unread = () => person.page.locator("#unread-count").getAttribute("data-count");
const serverList = async () =>
  (await person.api.get("/api/notifications")).body as {
    notifications: { id: string; title: string; is_read: boolean }[];
    unread_count: number;
  };

describe("notification centre", () => {
  it("shows a new notification without a reload, with the unread count", async () => {
    const { page, api } = person;
    await openSection(page, "Notifications");
    await expect.poll(unread).toBe("0");
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
    // Another browser signs in to the account: the server tells the owner.
    const fp = createHash("sha256").update(`other device ${Date.now()}`).digest("hex");
    expect(
      (
        await api.post("/api/devices", {
          fingerprint: fp,
          deviceName: "Firefox on Windows",
          os: "Windows",
          browser: "Firefox",
        })
      ).status,
    ).toBe(201);
    await page
      .locator("#notifications li", { hasText: "New device signed in" })
      .waitFor({ timeout: 30_000 });
    expect(await unread()).toBe("1");
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);
    expect(await page.locator("#notifications li").first().innerText()).toContain(
      "Firefox on Windows",
    );
    await screenshot(page, "screenshots/notifications-new.png");
  });

  it("marks one read, then all read", async () => {
    const { page, api } = person;
    for (const title of ["Share viewed", "Reminder"])
      expect(
        (
          await api.post("/api/notifications", {
            user_id: person.user.sub,
            type: "info",
            title,
            body: `${title} body`,
          })
        ).status,
      ).toBe(201);
    await page.reload();
    await expect.poll(unread).toBe("3");
    await page.getByRole("button", { name: "Mark read: Reminder" }).click();
    await expect.poll(unread).toBe("2");
    expect((await serverList()).notifications.find((n) => n.title === "Reminder")?.is_read).toBe(
      true,
    );
    await page.getByRole("button", { name: "Mark all read" }).click();
    await expect.poll(unread).toBe("0");
    const after = await serverList();
    expect(after.unread_count).toBe(0);
    expect(after.notifications.every((n) => n.is_read)).toBe(true);
    expect(await page.getByRole("button", { name: "Mark all read" }).isDisabled()).toBe(true);
  });

  it("opens a notification's page in the app", async () => {
    const { page } = person;
    await page
      .locator("#notifications li", { hasText: "New device signed in" })
      .getByRole("button", { name: "Open" })
      .click();
    await page.waitForURL("**/devices");
    await page.getByRole("heading", { level: 1, name: "Devices" }).waitFor();
    await openSection(page, "Notifications");
  });

  it("clears all, on the server too", async () => {
    const { page } = person;
    await page.getByRole("button", { name: "Clear all" }).click();
    await page.locator("#notifications li", { hasText: "Nothing here." }).waitFor();
    expect((await serverList()).notifications).toEqual([]);
  });
});
