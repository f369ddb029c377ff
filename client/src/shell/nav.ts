/**
 * The shell's navigation: the sections in groups (as Bitwarden's web vault groups its own), a
 * sidebar on wide screens and, on narrow ones, a menu opened from the header. Which of the two is
 * a matter of CSS; the menu button only says whether the list is open (aria-expanded).
 */
import { el } from "../pages/common";
import type { SectionDef } from "./context";
import { pageLinks } from "./sections";

/** Narrow screens: the width below which the navigation is a menu (as in styles.css). */
const NARROW = "(max-width: 48rem)";

export interface Nav {
  /** Marks the link of the section shown (aria-current) and closes the menu. */
  current(sectionId: string | undefined): void;
}

export function buildNav(
  nav: HTMLElement,
  list: HTMLElement,
  toggle: HTMLButtonElement,
  sections: SectionDef[],
  go: (path: string) => void,
): Nav {
  const groups = new Map<string, HTMLLIElement[]>();
  const item = (group: string, a: HTMLAnchorElement) => {
    const items = groups.get(group) ?? [];
    items.push(el("li", {}, a));
    groups.set(group, items);
  };
  for (const s of sections)
    item(s.group ?? "", el("a", { href: s.path, dataset: { section: s.id } }, s.title));
  for (const p of pageLinks) item(p.group, el("a", { href: p.href }, p.title));
  list.replaceChildren(
    ...[...groups].map(([name, items], i) => {
      if (!name) return el("ul", {}, ...items);
      const id = `nav-group-${i}`;
      const ul = el("ul", {}, ...items);
      ul.setAttribute("aria-labelledby", id);
      return el(
        "div",
        { className: "nav-group" },
        el("p", { id, className: "nav-heading" }, name),
        ul,
      );
    }),
  );

  const narrow = matchMedia(NARROW);
  function setOpen(open: boolean) {
    toggle.setAttribute("aria-expanded", String(open));
    document.body.classList.toggle("nav-open", open);
  }
  toggle.addEventListener("click", () => {
    const open = toggle.getAttribute("aria-expanded") !== "true";
    setOpen(open);
    if (open) nav.querySelector<HTMLElement>("a[aria-current=page], a")?.focus();
  });
  // Escape closes the menu and gives focus back to its button, as a disclosure does.
  nav.addEventListener("keydown", (ev) => {
    if (ev.key !== "Escape" || !narrow.matches || toggle.getAttribute("aria-expanded") !== "true")
      return;
    setOpen(false);
    toggle.focus();
  });
  narrow.addEventListener("change", () => setOpen(false));

  list.addEventListener("click", (ev) => {
    const a = (ev.target as HTMLElement).closest("a");
    if (!a || ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.button !== 0) return;
    setOpen(false);
    // Pages outside the shell (no section) load as pages.
    if (!a.dataset.section) return;
    ev.preventDefault();
    go(a.getAttribute("href")!);
  });
  nav.hidden = false;
  toggle.hidden = false;

  return {
    current(sectionId) {
      for (const a of Array.from(list.querySelectorAll("a"))) {
        if (sectionId && a.dataset.section === sectionId) a.setAttribute("aria-current", "page");
        else a.removeAttribute("aria-current");
      }
      setOpen(false);
    },
  };
}
