/**
 * Folders with no entry in them yet, kept on this device. A folder's name otherwise lives only in
 * its entries' sealed payloads (docs/decisions/vault.md, "Vault: favourites and folders"), so a folder just
 * made, or whose last entry moved out, has nowhere on the server to live. Its name is kept in the
 * local store, sealed under the vault key in a place of its own (no entry id can take it, so no
 * entry's envelope opens there), never in the clear. It reaches the person's other devices with
 * the first entry moved into it, and then is no longer kept here.
 */
import { type Envelope, openValue, sealValue, type Place } from "../../../../core/crypto";
import type { AppContext } from "../../shell/context";

export class EmptyFolders {
  private names: string[] = [];
  private readonly key: string;
  private readonly place: Place;

  constructor(private readonly app: AppContext) {
    this.key = `folders:${app.session.userId}`;
    this.place = { entryId: "empty-folders", userId: app.session.userId, host: "", scheme: "" };
  }

  /** Reads the kept names; a record that does not open (another vault key) is left as none. */
  async load(): Promise<void> {
    const env = await this.app.db.meta<Envelope>(this.key);
    if (!env) return;
    try {
      const value = await openValue(this.app.keys, this.place, env);
      this.names = Array.isArray(value)
        ? value.filter((v): v is string => typeof v === "string" && v.trim() !== "")
        : [];
    } catch {
      this.names = [];
    }
  }

  list(): string[] {
    return [...this.names];
  }

  has(name: string): boolean {
    return this.names.includes(name);
  }

  private async save(names: string[]) {
    this.names = [...new Set(names)];
    await this.app.db.setMeta(this.key, await sealValue(this.app.keys, this.place, this.names));
  }

  add(name: string): Promise<void> {
    return this.save([...this.names, name]);
  }

  /** Forgets a name: the folder was deleted, or an entry now carries it. */
  async remove(name: string): Promise<void> {
    if (this.has(name)) await this.save(this.names.filter((n) => n !== name));
  }

  async rename(from: string, to: string): Promise<void> {
    if (this.has(from)) await this.save(this.names.map((n) => (n === from ? to : n)));
  }
}
