/**
 * The vault's entry list: one row per entry (a letter avatar, the name, the username, the site),
 * moved through with the arrow keys. A long list is virtualised: only the rows in view and a
 * margin are in the page, each `li` saying its place (`aria-posinset` of `aria-setsize`) so a
 * screen reader still announces "12 of 10,000". The avatar is a letter and a colour derived from the name: no favicon or other
 * request is ever made from entry data (a request would tell a third party which sites are in
 * the vault).
 */
import { el } from "../../pages/common";

/** What a row shows; the entry itself is read from the store when it is opened. */
export type Row = {
  id: string;
  name: string;
  site: string;
  favorite?: boolean;
  /** An entry shared with the person: who shared it, and how. */
  shared?: string;
  /** The entry holds a passkey (the plaintext `has_passkey`). */
  passkey?: boolean;
};

/**
 * Up to this many rows every row is in the page; beyond it only the rows in view plus a margin are
 * (the list is virtualised): a keystroke or a paint then touches a few dozen rows whatever the
 * vault's size, where drawing 10,000 took seconds of main-thread time.
 */
const ALL_ROWS = 200;
/** Rows kept in the page above and below the ones in view: a fast scroll or an arrow key finds them there. */
const MARGIN = 30;
/** A row's height until one is measured (the stylesheet fixes it: `.entry-row` has a set height). */
const ROW_PX = 50;
const AVATAR_COLOURS = 8;

/** The avatar's letter: the first letter or digit of the name, else of the site. */
export function avatarLetter(name: string, site = ""): string {
  const m =
    /[\p{L}\p{N}]/u.exec(name) ?? /[\p{L}\p{N}]/u.exec(site.replace(/^https?:\/\/(www\.)?/i, ""));
  return m ? m[0].toLocaleUpperCase() : "?";
}

/** One of a few avatar colours, the same for the same name on every device. */
export function avatarColour(name: string): number {
  let h = 0;
  for (const c of name) h = (h * 31 + c.codePointAt(0)!) >>> 0;
  return h % AVATAR_COLOURS;
}

export function avatar(name: string, site: string, large = false): HTMLSpanElement {
  return el("span", {
    className: `avatar c${avatarColour(name)}${large ? " large" : ""}`,
    textContent: avatarLetter(name, site),
    ariaHidden: "true",
  });
}

/** What a drawn row shows besides its username: a row whose text changed is made again. */
const rowSig = (e: Row, queued: Set<string>) =>
  `${e.name}\u0001${e.site}\u0001${e.favorite ? 1 : 0}\u0001${e.shared ?? ""}\u0001${queued.has(e.id) ? 1 : 0}\u0001${e.passkey ? 1 : 0}`;

export class EntryList {
  /** Every row of the list as filtered and sorted now; only some are in the page. */
  private rows: Row[] = [];
  private queued = new Set<string>();
  /** Each row's place in `rows` by entry id, made when a key or a focus first needs it (not per keystroke). */
  private places: Map<string, number> | null = null;
  private place(id: string): number | undefined {
    this.places ??= new Map(this.rows.map((e, i) => [e.id, i]));
    return this.places.get(id);
  }
  private selected: string | null = null;
  /** The rows in the page by entry id, with what each shows: a scroll keeps the rows still in view. */
  private drawn = new Map<string, { li: HTMLLIElement; sig: string }>();
  /** One row's height in pixels, measured from a drawn row. */
  private rowPx = ROW_PX;
  /** The part of the list in view (pixels from its top), as last measured: a new answer is drawn with it, and measured at the next frame. */
  private view: [number, number] | null = null;
  private frame = 0;
  /**
   * Stand for the rows above and below the ones in the page (their height, no content, hidden from
   * screen readers): the scrollbar then shows the whole list. Elements, not the list's padding,
   * which its max-height would not contain.
   */
  private readonly above = el("li", { className: "list-spacer", ariaHidden: "true" });
  private readonly below = el("li", { className: "list-spacer", ariaHidden: "true" });
  /** Whether `rowPx` was measured since the list's box last changed size (fonts and zoom change it). */
  private measured = false;
  private readonly resized = new ResizeObserver(() => {
    this.measured = false;
    this.schedule();
  });
  private readonly onScroll = () => this.schedule();
  gone = false;

  constructor(
    private readonly list: HTMLElement,
    /** Usernames opened so far (they live in the encrypted part of the entry). */
    private readonly usernames: Map<string, string>,
    private readonly onOpen: (id: string) => void,
  ) {
    list.addEventListener("click", (ev) => {
      const b = (ev.target as HTMLElement).closest<HTMLButtonElement>("button.entry-row");
      if (b?.dataset.id) onOpen(b.dataset.id);
    });
    list.addEventListener("keydown", (ev) => this.onKey(ev));
    // The list scrolls in its own box on wide screens and with the page on narrow ones: either moves the rows in view.
    list.addEventListener("scroll", this.onScroll, { passive: true });
    window.addEventListener("scroll", this.onScroll, { passive: true });
    this.resized.observe(list);
  }

  /** Stops following scrolls and resizes (the page is leaving). */
  destroy() {
    this.gone = true;
    window.removeEventListener("scroll", this.onScroll);
    this.resized.disconnect();
    if (this.frame) cancelAnimationFrame(this.frame);
  }

  private row(e: Row, queued: Set<string>): HTMLLIElement {
    const sub = el(
      "span",
      { className: "row-sub" },
      el("span", { className: "user", textContent: this.usernames.get(e.id) ?? "" }),
      el("span", { className: "site", textContent: e.site }),
    );
    if (e.shared) sub.append(el("span", { className: "shared-mark", textContent: e.shared }));
    const text = el(
      "span",
      { className: "row-text" },
      el("span", { className: "name", textContent: e.name }),
      sub,
    );
    const b = el(
      "button",
      { type: "button", className: "entry-row", dataset: { id: e.id } },
      avatar(e.name, e.site),
      text,
    );
    if (e.passkey)
      b.append(
        el("span", {
          className: "passkey-mark",
          title: "This entry holds a passkey",
          textContent: "Passkey",
        }),
      );
    if (e.favorite)
      b.append(
        el(
          "span",
          { className: "fav-mark" },
          el("span", { ariaHidden: "true", textContent: "★" }),
          el("span", { className: "visually-hidden", textContent: "Favourite" }),
        ),
      );
    if (queued.has(e.id))
      b.append(el("span", { className: "pending-mark", textContent: "not yet synced" }));
    if (e.id === this.selected) b.setAttribute("aria-current", "true");
    return el("li", { dataset: { id: e.id } }, b);
  }

  /** Whether the list is still growing (a first sync's pages arriving): virtualised whatever its length. */
  private growing = false;

  /**
   * Lists `entries` at once: the rows in view (all of them up to a few hundred) are put in the
   * page, the others when scrolled to. `data-rows` counts the rows listed. `growing`: more pages of
   * a pull are on their way, so only the rows in view are drawn even for a short list. A first
   * sync's first page is 200 rows; drawn whole, the style and layout of its first frame was the
   * longest task of a new browser's sign-in (25–50 ms of CPU idle), for rows the next page moves
   * out of the page again. Once the pull ends the list is drawn as usual.
   */
  draw(entries: Row[], queued: Set<string>, growing = false) {
    this.growing = growing;
    this.rows = entries;
    this.queued = queued;
    this.places = null;
    this.list.dataset.rows = String(entries.length);
    // Drawn with the view as last measured (no layout forced in the keystroke's task), then checked
    // at the next frame, when the layout is made anyway. Never measured yet (the list's first
    // rows), with a window's height of rows from the top: measuring then forced the page's first
    // layout inside the task that read the store, one long task of both.
    this.render(undefined, true);
    this.schedule();
  }

  private schedule() {
    if (this.frame || this.gone) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  /** The rows to have in the page: those in view (of the list's box and of the window) and a margin. */
  private range(cached: boolean): [number, number] {
    const n = this.rows.length;
    if (n <= ALL_ROWS && !this.growing) return [0, n];
    if (cached && !this.view)
      return [0, Math.min(n, Math.ceil(window.innerHeight / this.rowPx) + MARGIN)];
    if (!cached || !this.view) {
      const box = this.list.getBoundingClientRect();
      this.view = [
        this.list.scrollTop + Math.max(0, -box.top - this.list.clientTop),
        this.list.scrollTop + Math.min(this.list.clientHeight, window.innerHeight - box.top),
      ];
    }
    const [top, bottom] = this.view;
    const first = Math.min(n, Math.max(0, Math.floor(top / this.rowPx) - MARGIN));
    return [first, Math.min(n, Math.max(first, Math.ceil(bottom / this.rowPx)) + MARGIN)];
  }

  /**
   * Puts the rows of the range (or of the rows around `around`) in the page; rows already there
   * stay where they are, so a focused row keeps its focus while the list scrolls.
   */
  private render(around?: number, cached = false) {
    if (this.gone) return;
    const n = this.rows.length;
    const [first, last] =
      around === undefined
        ? this.range(cached)
        : [Math.max(0, around - MARGIN), Math.min(n, around + MARGIN + 1)];
    const next = new Map<string, { li: HTMLLIElement; sig: string }>();
    const items: HTMLLIElement[] = [];
    for (let i = first; i < last; i++) {
      const e = this.rows[i]!;
      const sig = rowSig(e, this.queued);
      const known = this.drawn.get(e.id);
      const d = known && known.sig === sig ? known : { li: this.row(e, this.queued), sig };
      if (d.li.getAttribute("aria-posinset") !== String(i + 1))
        d.li.setAttribute("aria-posinset", String(i + 1));
      if (d.li.getAttribute("aria-setsize") !== String(n))
        d.li.setAttribute("aria-setsize", String(n));
      next.set(e.id, d);
      items.push(d.li);
    }
    for (const [id, d] of this.drawn) if (next.get(id)?.li !== d.li) d.li.remove();
    this.drawn = next;
    const px = this.rowPx;
    this.above.style.height = `${first * px}px`;
    this.below.style.height = `${(n - last) * px}px`;
    if (first > 0) items.unshift(this.above);
    if (last < n) items.push(this.below);
    // What stayed is in order already (the rows' order did not change) or is put in order here.
    items.forEach((li, k) => {
      const at = this.list.children[k];
      if (at !== li) this.list.insertBefore(li, at ?? null);
    });
    while (this.list.children.length > items.length) this.list.lastElementChild!.remove();
    // The stylesheet gives every row one height: measured once drawn, and again only after the
    // list's box changed size (fonts and zoom change it), in a render that measures anyway. Measured
    // at every render, it forced a layout of the rows just put in after each arrival of a pull.
    const h =
      (!cached && !this.measured && first < last
        ? this.drawn.get(this.rows[first]!.id)?.li.getBoundingClientRect().height
        : 0) ?? 0;
    if (h > 0) this.measured = true;
    if (h > 0 && Math.abs(h - px) > 0.5) {
      this.rowPx = h;
      if (n > ALL_ROWS || this.growing) this.schedule();
    }
  }

  private button(id: string): HTMLButtonElement | null {
    return this.drawn.get(id)?.li.querySelector<HTMLButtonElement>("button.entry-row") ?? null;
  }

  /** Shows a username learnt after the row was drawn (a row drawn later reads it then). */
  setUsername(id: string, username: string) {
    const span = this.button(id)?.querySelector(".user");
    if (span && span.textContent !== username) span.textContent = username;
  }

  /** Marks the open entry's row (aria-current), or none. */
  select(id: string | null) {
    if (this.selected) this.button(this.selected)?.removeAttribute("aria-current");
    this.selected = id;
    if (id) this.button(id)?.setAttribute("aria-current", "true");
  }

  firstId(): string | null {
    return this.rows[0]?.id ?? null;
  }

  /** Moves focus to a row: the first, the open one, or back to where it was. */
  focus(id?: string | null) {
    const i = (id ? this.place(id) : undefined) ?? 0;
    if (i < this.rows.length) this.focusAt(i);
  }

  /** Brings the row at `i` into the page and into view, and focuses it. */
  private focusAt(i: number) {
    if (!this.drawn.has(this.rows[i]!.id)) this.render(i);
    const b = this.button(this.rows[i]!.id);
    b?.focus();
    b?.scrollIntoView({ block: "nearest" });
  }

  private onKey(ev: KeyboardEvent) {
    const id = (ev.target as HTMLElement).closest("li")?.dataset.id;
    const at = id ? this.place(id) : undefined;
    if (at === undefined) return;
    const to = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: this.rows.length - 1 }[ev.key];
    if (to === undefined) return;
    ev.preventDefault();
    if (to < 0) document.getElementById("search")?.focus();
    else if (to < this.rows.length) this.focusAt(to);
  }
}
