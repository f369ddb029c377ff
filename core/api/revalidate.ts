/** Bytes, not text: any body replays as it came. A Response copies the bytes it is given, so one kept buffer serves every replay. */
type Kept = { etag: string; body: ArrayBuffer; type: string };

/**
 * Conditional GETs for the API client (RFC 9110 section 13.1.2, section 15.4.5). A GET answered
 * with an `ETag` is kept here, and the same URL is asked again with `If-None-Match`; a 304 is then
 * answered from the kept body, so an unchanged answer costs the server a version check and the
 * network no body (the autofill match: docs/decisions/sync.md, "Sync: hot paths (delta pull, match, create, Server-Timing)"). Memory only: every call goes
 * out with `cache: "no-store"`, so no vault data reaches the browser's HTTP cache, and what is kept
 * goes with its client (the extension drops its client on lock). Only answers that carry an ETag
 * are read here; others, streams included, pass through untouched. The server's tag names the
 * user, so a kept answer is never confirmed for another user signing in on the same client.
 */
export class Revalidation {
  private readonly kept = new Map<string, Kept>();

  constructor(private readonly max = 32) {}

  /** The If-None-Match for a GET of this URL, when an answer to it is kept. */
  condition(url: string): string | undefined {
    return this.kept.get(url)?.etag;
  }

  /** A 304 to a conditional GET as the 200 it confirms, or null when nothing is kept for the URL. */
  replay(url: string, notModified: Response): Response | null {
    const kept = this.kept.get(url);
    if (!kept) return null;
    this.remember(url, kept);
    const headers = new Headers(notModified.headers);
    headers.set("content-type", kept.type);
    headers.set("etag", notModified.headers.get("etag") ?? kept.etag);
    return new Response(kept.body, { status: 200, headers });
  }

  /** A successful GET: kept when it carries an ETag (its bytes read once and handed on), else as it is. */
  async keep(url: string, res: Response): Promise<Response> {
    const etag = res.headers.get("etag");
    if (!etag) return res;
    const body = await res.arrayBuffer();
    this.remember(url, { etag, body, type: res.headers.get("content-type") ?? "application/json" });
    return new Response(body, { status: res.status, headers: res.headers });
  }

  /** Drops what is kept for this URL: its next GET asks unconditionally. */
  forget(url: string) {
    this.kept.delete(url);
  }

  /** Most recently used last; past `max` the least recently used goes. */
  private remember(url: string, entry: Kept) {
    this.kept.delete(url);
    this.kept.set(url, entry);
    if (this.kept.size > this.max) this.kept.delete(this.kept.keys().next().value!);
  }
}
