/** Helpers for the journeys of issue 15 (shell, sharing, emergency access, dead man's switch). */
import { inject } from "vitest";
import { launch, type Browser, type BrowserContext, type Page } from "./browser";

export const base = () => inject("baseUrl");

/** A browser context for one person, with page errors surfaced in the test output. */
export async function personContext(browser: Browser, viewport = { width: 1280, height: 900 }): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: base(), viewport });
  const page = await context.newPage();
  page.on("dialog", (d) => void d.accept());
  page.on("pageerror", (e) => console.error(`page error: ${e.message}`));
  return { context, page };
}

/** Opens a section through the navigation, as a person would, and waits for its heading. */
export async function openSection(page: Page, title: string, heading: string | RegExp = title) {
  await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: title, exact: true }).click();
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
}

export { launch };
