/**
 * What the vault page keeps on this device only, in the local store's metadata (never sent): when
 * each entry was last opened, the list's order as the person left it, and the last full listing
 * drawn before the store's full read on the next mount.
 */
import type { LocalDb } from "../db";
import type { Row } from "./vault-list";

/** Last uses are written this long after an open, outside the click's task. */
const KEEP_USED_MS = 500;

export class DeviceState {
  /** When each entry was last opened on this device, for "Last used"; "Last changed" is the entry's own updated_at. */
  used: Record<string, number> = {};
  private keepUsed: ReturnType<typeof setTimeout> | undefined;
  private listed = "";

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
   * when it changed.
   */
  async keepListing(rows: Row[]) {
    const sig = rows.map((r) => `${r.id}\u0001${r.name}\u0001${r.site}\u0001${r.favorite ? 1 : 0}`).join("\u0002");
    if (sig === this.listed) return;
    this.listed = sig;
    await this.db.setMeta(this.key("listing"), rows);
  }

  cachedListing(): Promise<Row[] | undefined> {
    return this.db.meta<Row[]>(this.key("listing"));
  }
}
