/** Which section a path opens. Pure, so the build and the tests can use it too. */
import type { SectionDef } from "./context";

/** Old links (mails, bookmarks) that open a section under an earlier name. */
const ALIASES: Record<string, string> = { "/dashboard": "/vault" };

export function resolveSection(
  sections: SectionDef[],
  pathname: string,
): { section: SectionDef; subpath: string } | null {
  const path = ALIASES[pathname] ?? (pathname.length > 1 ? pathname.replace(/\/+$/, "") : pathname);
  for (const section of sections) {
    if (path === section.path) return { section, subpath: "" };
    if (path.startsWith(`${section.path}/`))
      return { section, subpath: path.slice(section.path.length) };
  }
  return null;
}
