/**
 * Entries others shared with the person, listed in their vault beside their own (as Bitwarden and
 * 1Password list shared items in the vault, not only on a sharing page): accepted shares, each
 * marked with who shared it and whether it is read-only, opened read-only through the item key the
 * share carries. Editing a share that allows it stays on the Sharing page, where its rules are.
 */
import { type EntrySecrets, placeOf, openSharedEntry } from "../../../../core/crypto";
import type { LocalEntry } from "../../../../core/store";
import { ownSharingKey } from "../../keys/sharing-key";
import { sharingApi, type Share } from "../../../../core/api";
import type { AppContext } from "../../shell/context";
import type { Row } from "./list";
import { keyMatches, needles, queryWords, textKey } from "./search";

/** Shared rows' ids: never an entry id (those are UUIDs). */
export const SHARED_PREFIX = "share:";

export type SharedEntry = {
  share: Share & { account: NonNullable<Share["account"]> };
  entry: LocalEntry;
  mark: string;
};

const byName = new Intl.Collator(undefined, { sensitivity: "variant" });

/** How a shared entry is marked in the list and the detail. */
export function sharedMark(s: Share): string {
  return `Shared by ${s.owner_email || "another person"}, ${s.permission === "write" ? "can edit on the Sharing page" : "read-only"}`;
}

export class SharedEntries {
  /** In name order. */
  items: SharedEntry[] = [];
  private sig = "";
  private key: Promise<CryptoKey | null> | null = null;

  constructor(private readonly app: AppContext) {}

  /**
   * Reads the accepted shares (the server's list; offline, the Sharing page's last copy). True when
   * what the list shows changed.
   */
  async load(): Promise<boolean> {
    const uid = this.app.session.userId;
    let received: Share[];
    try {
      received = (await sharingApi(this.app.api).list("received")).shares;
    } catch {
      received = (await this.app.db.meta<{ received: Share[] }>(`shares:${uid}`))?.received ?? [];
    }
    const items = received
      .filter(
        (s): s is SharedEntry["share"] =>
          s.status === "active" && !!s.account?.encrypted_data && !!s.account.wrapped_item_key,
      )
      .map((share) => ({
        share,
        mark: sharedMark(share),
        entry: {
          userId: uid,
          id: `${SHARED_PREFIX}${share.id}`,
          name: share.account.name,
          website: share.account.website,
          url: share.account.url,
          tags: [],
          encryption_version: 3,
          wrapped_item_key: null,
          encrypted_data: null,
          created_at: share.created_at,
          updated_at: share.accepted_at ?? share.created_at,
          search_tokens: null,
        },
      }))
      .sort((a, b) => byName.compare(a.entry.name, b.entry.name));
    const sig = JSON.stringify(
      items.map((i) => [
        i.entry.id,
        i.entry.name,
        i.entry.website,
        i.mark,
        i.share.account.encrypted_data,
      ]),
    );
    if (sig === this.sig) return false;
    this.sig = sig;
    this.items = items;
    return true;
  }

  find(id: string): SharedEntry | undefined {
    return this.items.find((i) => i.entry.id === id);
  }

  row(i: SharedEntry): Row {
    return {
      id: i.entry.id,
      name: i.entry.name,
      site: i.entry.website ?? i.entry.url ?? "",
      shared: i.mark,
    };
  }

  /** The rows a search shows: as the person's own entries, each query word begins a word of the name or site. */
  rows(query: string): Row[] {
    const q = needles(queryWords(query));
    return this.items
      .filter(
        (i) =>
          !q.length ||
          keyMatches(textKey(`${i.entry.name} ${i.entry.website ?? i.entry.url ?? ""}`), q),
      )
      .map((i) => this.row(i));
  }

  /** Opens a shared entry with this person's sharing key; the owner's log records the view. */
  async secrets(i: SharedEntry): Promise<EntrySecrets> {
    this.key ??= ownSharingKey(this.app, false).then((k) => k.privateKey);
    const key = await this.key.catch((err: unknown) => {
      this.key = null;
      throw err;
    });
    if (!key) throw new Error("this account's sharing key cannot be opened on this device");
    const { share } = i;
    const secrets = await openSharedEntry(
      key,
      share.account.wrapped_item_key!,
      placeOf(share.owner_id, share.account),
      share.account.encrypted_data!,
    );
    if (navigator.onLine)
      void sharingApi(this.app.api)
        .logView(share.id, "password_viewed")
        .catch(() => undefined);
    return secrets;
  }
}

/** Own rows and shared rows in one name order (both already sorted by name). */
export function mergeByName(own: Row[], shared: Row[]): Row[] {
  if (!shared.length) return own;
  const out: Row[] = [];
  let j = 0;
  for (const r of own) {
    while (j < shared.length && byName.compare(shared[j]!.name, r.name) < 0) out.push(shared[j++]!);
    out.push(r);
  }
  return out.concat(shared.slice(j));
}
