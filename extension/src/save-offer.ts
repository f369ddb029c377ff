/**
 * The offscreen vault's save offer after a sign-in typed into a page: what to offer (save a new
 * sign-in, update a changed password, or nothing when the vault already holds it), and the saving.
 */
import type { Vault } from "../../core/vault";
import type { Candidate, Opened } from "./entry-lookup";
import type { SaveOffer } from "./messages";
import { entryVerdict } from "./policy";

export type Submission = { url: string; username: string; password: string };

/** The offer for a submission among the entries of its page, or null when the vault already holds it. */
export function offerFor(
  sub: Submission,
  list: { c: Candidate; o: Opened | null }[],
): (SaveOffer & { id?: string }) | null {
  const host = new URL(sub.url).hostname;
  for (const { c, o } of list) {
    if (
      !o ||
      entryVerdict(
        { pageUrl: sub.url, crossOriginFrame: false },
        o.url,
        o.secrets.urls,
        true,
        o.schemeSealed,
      ) !== "fill"
    )
      continue;
    if (o.secrets.username !== sub.username) continue;
    if (o.secrets.password === sub.password) return null;
    return { kind: "update", host, username: sub.username, id: c.id };
  }
  return { kind: "save", host, username: sub.username };
}

/** The accepted offer: the entry's password updated, or a new entry for the page. */
export async function saveSubmission(vault: Vault, sub: Submission, id: string | undefined) {
  const page = new URL(sub.url);
  const existing = id ? await vault.db.entry(vault.userId, id) : undefined;
  if (id && existing) {
    const secrets = await vault.secrets(existing);
    await vault.update(id, {
      ...secrets,
      password: sub.password,
      name: existing.name,
      website: existing.website ?? "",
      url: existing.url ?? "",
      tags: existing.tags,
    });
  } else {
    const url = `${page.origin}${page.pathname}`;
    await vault.create({
      name: page.hostname,
      website: page.hostname,
      url,
      tags: [],
      username: sub.username,
      password: sub.password,
      notes: "",
      category: "",
      totp: "",
    });
  }
}
