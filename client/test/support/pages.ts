/** Checks a page as people see it: no sideways scroll, and axe-core (a maintained accessibility checker). */
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { expect } from "vitest";
import { dashboardReady, screenshot, type Page } from "./browser";

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

/** The widths the app is checked at: two phones and a desktop. */
export const WIDTHS = [360, 390, 1280] as const;
export const THEMES = ["light", "dark"] as const;
export type Theme = (typeof THEMES)[number];

/** Sets the viewport and the system's colour scheme (prefers-color-scheme), as a person's device would. */
export async function view(page: Page, width: number, theme: Theme) {
  await page.setViewportSize({ width, height: width < 600 ? 780 : 900 });
  await page.emulateMedia({ colorScheme: theme });
}

/** What scrolls sideways: the document's overflow, and the elements that stick out of the viewport. */
export function sidewaysScroll(page: Page): Promise<string | null> {
  return page.evaluate(() => {
    const doc = document.scrollingElement!;
    if (doc.scrollWidth <= doc.clientWidth) return null;
    const wide: string[] = [];
    for (const el of Array.from(document.querySelectorAll<HTMLElement>("body *"))) {
      const r = el.getBoundingClientRect();
      if (
        r.width &&
        r.right > doc.clientWidth + 1 &&
        !(el.parentElement && el.parentElement.getBoundingClientRect().right > doc.clientWidth + 1)
      ) {
        wide.push(
          `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}${el.className && typeof el.className === "string" ? `.${el.className.split(" ").join(".")}` : ""} (right ${Math.round(r.right)})`,
        );
      }
    }
    return `scrollWidth ${doc.scrollWidth} > clientWidth ${doc.clientWidth}: ${wide.slice(0, 5).join(", ")}`;
  });
}

type Violation = {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
};

/**
 * Serious and critical axe violations of the page as it is now, one line each. The script goes in
 * through the DevTools protocol (page.evaluate): the pages' CSP rightly refuses inline scripts.
 * label-content-name-mismatch (a control whose visible text is not part of its accessible name,
 * WCAG 2.5.3) is experimental in axe, so it is turned on by name.
 */
export async function axeViolations(
  page: Page,
  impacts: readonly string[] = ["serious", "critical"],
): Promise<string[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run(ctx: Document, opts: object): Promise<{ violations: unknown[] }> };
      }
    ).axe;
    const result = await axe.run(document, {
      resultTypes: ["violations"],
      rules: { "label-content-name-mismatch": { enabled: true } },
    });
    return result.violations as Violation[];
  });
  return violations
    .filter((v) => impacts.includes(v.impact ?? ""))
    .map(
      (v) =>
        `${v.impact} ${v.id} (${v.help}): ${v.nodes.map((n) => `${n.target.join(" ")}${n.failureSummary ? ` [${n.failureSummary.replace(/\s+/g, " ").slice(0, 160)}]` : ""}`).join("; ")}`,
    );
}

/**
 * Text drawn dark on a dark background, one line each: every element with text of its own that is
 * on screen, its colour against the first opaque background behind it (itself or an ancestor).
 * axe's color-contrast rule leaves some text undecided (a background it cannot see through, text
 * over an overlay): this names the failure the dark theme risks, a colour left at the light
 * theme's dark value, wherever it is. Luminance as WCAG 2.2 defines it (relative luminance); both
 * under 0.1 is darker than a mid-grey on a mid-grey.
 */
export function darkOnDark(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const rgba = (c: string) => (c.match(/[\d.]+/g) ?? []).map(Number);
    const lum = ([r, g, b]: number[]) => {
      const ch = (v: number) => {
        const s = v / 255;
        return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * ch(r!) + 0.7152 * ch(g!) + 0.0722 * ch(b!);
    };
    const background = (el: Element | null): number[] => {
      for (let e = el; e; e = e.parentElement) {
        const c = rgba(getComputedStyle(e).backgroundColor);
        if (c.length >= 3 && (c[3] ?? 1) > 0.5) return c;
      }
      return [255, 255, 255];
    };
    const found: string[] = [];
    for (const el of Array.from(document.querySelectorAll<HTMLElement>("body *"))) {
      const own = Array.from(el.childNodes)
        .filter((n) => n.nodeType === Node.TEXT_NODE)
        .map((n) => n.textContent ?? "")
        .join("")
        .trim();
      if (!own || !el.checkVisibility({ opacityProperty: true, visibilityProperty: true }))
        continue;
      const r = el.getBoundingClientRect();
      if (r.width < 2 || r.height < 2) continue;
      const text = lum(rgba(getComputedStyle(el).color));
      const back = lum(background(el));
      if (text < 0.1 && back < 0.1)
        found.push(
          `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""} "${own.slice(0, 40)}": ${getComputedStyle(el).color} on ${background(el).join(",")}`,
        );
    }
    return found;
  });
}

/**
 * What sticks out of the screen sideways without making the page scroll: an open dialog (the top
 * layer) and anything placed fixed (the toast), which sidewaysScroll cannot see.
 */
export function offScreen(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    return Array.from(document.querySelectorAll<HTMLElement>("dialog[open], body *"))
      .filter((el) => el.tagName === "DIALOG" || getComputedStyle(el).position === "fixed")
      .filter((el) => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && (r.left < -1 || r.right > width + 1);
      })
      .map((el) => {
        const r = el.getBoundingClientRect();
        return `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}${el.className ? `.${String(el.className).split(" ").join(".")}` : ""} (left ${Math.round(r.left)}, right ${Math.round(r.right)} of ${width})`;
      })
      .filter((line, i, all) => all.indexOf(line) === i);
  });
}

/** The page's own background is dark: the system's dark scheme reached the page's colours. */
export function themeIsDark(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const [r, g, b] = (
      getComputedStyle(document.documentElement).backgroundColor.match(/\d+/g) ?? []
    ).map(Number);
    return r! + g! + b! < 3 * 80;
  });
}

/**
 * Checks the page shown at the given widths in both themes; returns what failed, one line per
 * finding: sideways scroll, a dialog or fixed box off the screen, serious and critical axe violations (color-contrast among them, so in
 * the dark theme too), and in the dark theme text dark on dark. A screenshot of each is kept
 * (test-artifacts/screenshots/pages/).
 */
export async function checkEverywhere(
  page: Page,
  name: string,
  widths: readonly number[] = WIDTHS,
): Promise<string[]> {
  const found: string[] = [];
  for (const theme of THEMES) {
    for (const width of widths) {
      found.push(...(await checkNow(page, name, width, theme)));
    }
  }
  await view(page, 1280, "light");
  return found;
}

/** The checks of checkEverywhere for one width and theme, the page as it is now. */
export async function checkNow(page: Page, name: string, width: number, theme: Theme) {
  const found: string[] = [];
  await view(page, width, theme);
  if ((await themeIsDark(page)) !== (theme === "dark"))
    found.push(`${width} ${theme}: the page's background is not the ${theme} theme's`);
  const scroll = await sidewaysScroll(page);
  if (scroll) found.push(`${width} ${theme}: scrolls sideways: ${scroll}`);
  for (const o of await offScreen(page)) found.push(`${width} ${theme}: off the screen: ${o}`);
  for (const v of await axeViolations(page)) found.push(`${width} ${theme}: ${v}`);
  if (theme === "dark")
    for (const d of await darkOnDark(page)) found.push(`${width} ${theme}: dark on dark: ${d}`);
  await screenshot(page, `screenshots/pages/${name}-${width}-${theme}.png`);
  return found;
}

/** Opens a section by address and waits for its heading and for any loading it announces. */
export async function openPath(page: Page, path: string) {
  await page.goto(path);
  await dashboardReady(page);
  await page.locator("#app-main h1").first().waitFor();
  await expect.poll(() => page.locator("#app-main [aria-busy=true]").count()).toBe(0);
}
