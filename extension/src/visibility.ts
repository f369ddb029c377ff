/**
 * Whether the extension's frame is really visible in the page, as the content script can tell from
 * outside it: the page may restyle or move the frame's host (the host is in page DOM; only its
 * closed shadow root is ours) or paint over it. The frame checks itself with IntersectionObserver
 * v2 as well (menu.ts); either refusal refuses the click.
 */

/** A control must have been shown, and judged visible, this long before a click on it counts. */
export const MIN_SHOWN_MS = 500;
/** How often the content script re-judges an open frame, so "visible since" has this resolution. */
export const CHECK_EVERY_MS = 100;

export type Seen = { ok: true } | { ok: false; reason: string };

const INVISIBLE_STYLE = (s: CSSStyleDeclaration): string | null => {
  if (s.opacity !== "1") return `opacity ${s.opacity}`;
  if (s.filter !== "none") return `filter ${s.filter}`;
  if (s.visibility !== "visible") return `visibility ${s.visibility}`;
  if (s.clipPath !== "none") return "clip-path";
  if ((s.maskImage || s.webkitMaskImage || "none") !== "none") return "mask";
  if (s.mixBlendMode !== "normal") return `mix-blend-mode ${s.mixBlendMode}`;
  if (s.transform !== "none" && !/^matrix\(1, 0, 0, 1, [-\d.e]+, [-\d.e]+\)$/.test(s.transform))
    return "transform";
  if (s.display === "none" || s.contentVisibility === "hidden") return "display";
  return null;
};

/** The host's z-index: the highest there is, so only later elements of equal z-index (or the top layer) paint over it. */
export const TOP_Z = "2147483647";

const meets = (a: DOMRect, b: DOMRect) =>
  a.width > 0 &&
  a.height > 0 &&
  a.left < b.right &&
  b.left < a.right &&
  a.top < b.bottom &&
  b.top < a.bottom;

/**
 * What hit testing cannot see: an overlay with `pointer-events: none` lets the click through to
 * the frame while showing the person something else. The host is a child of the root element with
 * the highest z-index, so in the root stacking context only the top layer (modal dialogs, open
 * popovers, full screen) and later elements of that same z-index (and their descendants, and the
 * root's ::after) can paint over it: those are the ones looked at, so the scan stays cheap.
 */
function overlaid(host: Element, r: DOMRect): string | null {
  for (const sel of [":modal", ":popover-open", ":fullscreen"]) {
    try {
      for (const el of document.querySelectorAll(sel))
        if (meets(el.getBoundingClientRect(), r)) return "top layer";
    } catch {
      // A selector this Chromium does not know: nothing of that kind can be shown either.
    }
  }
  const after = getComputedStyle(document.documentElement, "::after");
  if (after.content !== "none" && after.zIndex === TOP_Z) return "root ::after";
  for (let sib = host.nextElementSibling; sib; sib = sib.nextElementSibling) {
    for (const el of [sib, ...sib.querySelectorAll("*")]) {
      const s = getComputedStyle(el);
      if (s.zIndex !== TOP_Z || s.position === "static") continue;
      if ([el, ...el.querySelectorAll("*")].some((d) => meets(d.getBoundingClientRect(), r)))
        return "overlay";
    }
  }
  return null;
}

/** The parent across shadow boundaries: a shadow root's host. */
const composedParent = (el: Element): Element | null =>
  el.parentElement ?? (el.parentNode as ShadowRoot | null)?.host ?? null;

/**
 * The frame and each of its ancestors paint fully (no opacity, filter, mask, blend or
 * non-translation transform), it lies inside the viewport and inside every clipping ancestor,
 * and at its centre and four inset corners the topmost element is the frame itself.
 */
export function judge(
  frame: HTMLIFrameElement,
  root: ShadowRoot,
  expected: { width: number; height: number },
  deep = false,
): Seen {
  if (!frame.isConnected) return { ok: false, reason: "detached" };
  if (root.host.parentElement !== document.documentElement) return { ok: false, reason: "moved" };
  if (getComputedStyle(root.host).zIndex !== TOP_Z) return { ok: false, reason: "lowered" };
  const r = frame.getBoundingClientRect();
  if (r.width < expected.width - 1 || r.height < expected.height - 1)
    return { ok: false, reason: "shrunk" };
  if (r.left < 0 || r.top < 0 || r.right > innerWidth || r.bottom > innerHeight)
    return { ok: false, reason: "off-screen" };
  for (let el: Element | null = frame; el; el = composedParent(el)) {
    const s = getComputedStyle(el);
    const bad = INVISIBLE_STYLE(s);
    if (bad) return { ok: false, reason: bad };
    if (
      el !== frame &&
      (s.overflowX !== "visible" || s.overflowY !== "visible" || s.contain.includes("paint"))
    ) {
      const c = el.getBoundingClientRect();
      if (
        el !== document.documentElement &&
        (r.left < c.left || r.top < c.top || r.right > c.right || r.bottom > c.bottom)
      )
        return { ok: false, reason: "clipped" };
    }
  }
  const inset = 4;
  const points: [number, number][] = [
    [(r.left + r.right) / 2, (r.top + r.bottom) / 2],
    [r.left + inset, r.top + inset],
    [r.right - inset, r.top + inset],
    [r.left + inset, r.bottom - inset],
    [r.right - inset, r.bottom - inset],
  ];
  for (const [x, y] of points) {
    // The document answers with our host (the shadow boundary retargets); the root names the frame.
    if (root.elementFromPoint(x, y) !== frame) return { ok: false, reason: "covered" };
  }
  const over = deep ? overlaid(root.host, r) : null;
  return over ? { ok: false, reason: `covered (${over})` } : { ok: true };
}

/** Re-judges every CHECK_EVERY_MS; `since` is when the frame became and stayed visible (null while not). */
export class VisibilityWatch {
  private since: number | null = null;
  private last: Seen = { ok: false, reason: "not judged yet" };
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(private readonly check: (deep: boolean) => Seen) {
    this.timer = setInterval(() => this.tick(), CHECK_EVERY_MS);
    this.tick();
  }

  private tick(deep = false): Seen {
    this.last = this.check(deep);
    if (!this.last.ok) this.since = null;
    else this.since ??= performance.now();
    return this.last;
  }

  /** At the moment of a click: visible now, and continuously for MIN_SHOWN_MS. */
  verdict(): Seen {
    const now = this.tick(true);
    if (!now.ok) return now;
    const shown = this.since === null ? 0 : performance.now() - this.since;
    return shown >= MIN_SHOWN_MS
      ? { ok: true }
      : { ok: false, reason: `shown ${Math.round(shown)} ms` };
  }

  stop() {
    clearInterval(this.timer);
  }
}
