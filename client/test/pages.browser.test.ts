import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInPerson } from "./support/account";
import { launch, screenshot, type Browser } from "./support/browser";
import { base, personContext } from "./support/journey";
import {
  axeViolations,
  checkEverywhere,
  darkOnDark,
  openPath,
  THEMES,
  view,
} from "./support/pages";

// Every page of the app, signed in and unlocked, at two phone widths and a desktop's, in the light
// and the dark theme (the system's choice): nothing scrolls sideways, axe-core finds no serious or
// critical violation (colour contrast included, in both themes), no text is dark on dark in the
// dark theme, and a screenshot of each is kept (test-artifacts/screenshots/pages/).
let browser: Browser;
let person: Awaited<ReturnType<typeof signedInPerson>>;

const SECTIONS = [
  "/vault",
  "/health",
  "/notifications",
  "/vaults",
  "/sharing",
  "/session-shares",
  "/identities",
  "/resets",
  "/mailboxes",
  "/discovery",
  "/emergency",
  "/dead-man-switch",
  "/settings",
  "/security",
  "/devices",
  "/tokens",
  "/import-export",
];
/** Long enough to widen a drop-down that is not made to fit. */
const LONG_NAME = "A rather long entry name that would widen a drop-down on a phone";

beforeAll(async () => {
  browser = await launch();
  person = await signedInPerson(browser, "pages", undefined, [
    {
      name: LONG_NAME,
      website: "a-very-long-subdomain-name.example.com",
      username: "someone.with.a.long.address@example.com",
      password: "pw-pages-1",
    },
  ]);
});

afterAll(async () => {
  await browser?.close();
});

const open = openPath;

describe("every page, at phone and desktop widths, light and dark", () => {
  for (const path of SECTIONS) {
    it(`${path}: fits the screen and passes axe-core`, async () => {
      await open(person.page, path);
      expect(await checkEverywhere(person.page, path.slice(1))).toEqual([]);
    });
  }

  it("/import-export with a file previewed (a table: stacked cards on a phone)", async () => {
    const { page } = person;
    await open(page, "/import-export");
    const csv = [
      "name,url,username,password,notes",
      `${LONG_NAME},https://a-very-long-subdomain-name.example.com/login/with/a/path,someone.with.a.long.address@example.com,pw-1,`,
      "Only a name,,,,",
    ].join("\n");
    await page
      .getByLabel(/Export file from another password manager/)
      .setInputFiles({ name: "export.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
    await page.getByRole("button", { name: "Preview" }).click();
    await page.locator("#import-preview tbody tr").first().waitFor();
    expect(await checkEverywhere(page, "import-export-preview")).toEqual([]);
  });

  it("the navigation menu, opened on a phone", async () => {
    const { page } = person;
    await open(page, "/vault");
    const found: string[] = [];
    for (const theme of THEMES) {
      await view(page, 360, theme);
      await page.getByRole("button", { name: "Menu" }).click();
      await page
        .getByRole("navigation", { name: "Sections" })
        .getByRole("link", { name: "Vault", exact: true })
        .waitFor();
      for (const v of await axeViolations(page)) found.push(`${theme}: ${v}`);
      if (theme === "dark")
        for (const d of await darkOnDark(page)) found.push(`dark on dark: ${d}`);
      await screenshot(page, `screenshots/pages/menu-360-${theme}.png`);
      await page.keyboard.press("Escape");
    }
    await view(page, 1280, "light");
    expect(found).toEqual([]);
  });

  it("/keys, the offline page and the not-found page", async () => {
    const { page } = person;
    for (const [path, name] of [
      ["/keys", "keys"],
      ["/offline", "offline"],
      ["/no-such-page", "not-found"],
    ] as const) {
      await page.goto(path);
      await page.getByRole("heading", { level: 1 }).first().waitFor();
      expect(await checkEverywhere(page, name)).toEqual([]);
    }
  });

  it("the lock screen", async () => {
    const { page } = person;
    await open(page, "/vault");
    await page.getByRole("button", { name: "Lock" }).click();
    await page.locator("body[data-ready=locked]").waitFor();
    expect(await checkEverywhere(page, "lock-screen")).toEqual([]);
  });

  it("the sign-in page, signed out", async () => {
    const { context, page } = await personContext(browser);
    await page.goto(`${base()}/`);
    await page.locator("#signin-link").waitFor();
    expect(await checkEverywhere(page, "signin")).toEqual([]);
    await context.close();
  });
});
