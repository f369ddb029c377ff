/**
 * What the vault page keeps on this device only, in the local store's metadata (never sent): when
 * each entry was last opened, the list's order as the person left it, and the last full listing
 * drawn before the store's full read on the next mount.
 */
import type { LocalDb } from "../../../../core/store";
import { slicer } from "../../../../core/vault";
import type { Row } from "./list";

/** Last uses are written this long after an open, outside the click's task. */
const KEEP_USED_MS = 500;
/** Rows made into text at a time while the listing is kept. */
const LISTING_SLICE = 500;

export class DeviceState {
  /** When each entry was last opened on this device, for "Last used"; "Last changed" is the entry's own updated_at. */
  used: Record<string, number> = {};
  private keepUsed: ReturnType<typeof setTimeout> | undefined;
  private listed = "";
  /** Counts listings asked to be kept: a slow one superseded by a newer one stops. */
  private keeping = 0;

  private constructor(
    private readonly db: LocalDb,
    private readonly userId: string,
  ) {}

  static async load(db: LocalDb, userId: string): Promise<DeviceState> {
    const state = new DeviceState(db, userId);
    state.used = (await db.meta<Record<string, number>>(state.key("used"))) ?? {};
    return state;
  }

  private key(kind: "used" | "sort" | "listing") {
    return `${kind}:${this.userId}`;
  }

  /** Notes an open now; the record (one time per entry) is written a moment later. */
  touch(id: string) {
    this.used[id] = Date.now();
    clearTimeout(this.keepUsed);
    this.keepUsed = setTimeout(() => {
      this.keepUsed = undefined;
      void this.db.setMeta(this.key("used"), this.used);
    }, KEEP_USED_MS);
  }

  /** Writes a held-back last use at once (the page is leaving). */
  flush() {
    if (this.keepUsed === undefined) return;
    clearTimeout(this.keepUsed);
    this.keepUsed = undefined;
    void this.db.setMeta(this.key("used"), this.used);
  }

  /** The list's order kept on this device (as Bitwarden and 1Password keep theirs): applied to `select` and followed. */
  async followSort(select: HTMLSelectElement) {
    const kept = await this.db.meta<string>(this.key("sort"));
    if (kept && [...select.options].some((o) => o.value === kept)) select.value = kept;
    select.addEventListener("change", () => void this.db.setMeta(this.key("sort"), select.value));
  }

  /**
   * The last full listing (ids, names, sites: plaintext columns the store holds anyway) kept in one
   * metadata record, so the next mount draws it before the store's full read, which deserialises
   * every entry with its search tokens and takes seconds for a vault of thousands. Written only
   * when it changed. Kept as one JSON text, made a slice of rows per task: the store clones a
   * string in one copy, where 10,000 row objects took a structured clone of each on the page's
   * thread (a long task after every first sync), and the text is the comparison too.
   */
  async keepListing(rows: Row[]) {
    const mine = ++this.keeping;
    const parts: string[] = [];
    const clock = slicer();
    for (let i = 0; i < rows.length; i += LISTING_SLICE) {
      if (clock.due()) {
        await clock.yield();
        // A newer listing came meanwhile: it is the one to keep.
        if (mine !== this.keeping) return;
      }
      parts.push(JSON.stringify(rows.slice(i, i + LISTING_SLICE)).slice(1, -1));
    }
    const text = `[${parts.filter((p) => p).join(",")}]`;
    if (text === this.listed) return;
    this.listed = text;
    await this.db.setMeta(this.key("listing"), text);
  }

  /** The listing kept by `keepListing` (an older build kept the rows themselves). */
  async cachedListing(): Promise<Row[] | undefined> {
    const kept = await this.db.meta<Row[] | string>(this.key("listing"));
    if (typeof kept !== "string") return kept;
    try {
      return JSON.parse(kept) as Row[];
    } catch {
      return undefined;
    }
  }
}
