/** Checks a page as people see it: no sideways scroll, and axe-core (a maintained accessibility checker). */
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import type { Page } from "./browser";

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
