/**
 * Session shares made on this device. The server answers one share by id but lists none, and shows
 * the viewer link only when the share is made; this device keeps both (the link alone admits no
 * one: a viewer still signs in from a registered device) so the owner can watch and copy it later.
 */
import type { ApiClient, WireBody, WireResponse } from "../../../core/api";
import { AUTOMATION_ENDPOINTS as EP } from "../automation/endpoints";
import type { LocalDb } from "../../../core/store";

export type KnownShare = {
  id: string;
  entryId: string;
  entryName: string;
  shareUrl: string;
  createdAt: string;
};
export type ShareView = WireResponse<"/api/session-shares/{id}", "get">["session"];
/** The choices the share form always makes (the server has a default for each). */
export type ShareOptions = Required<
  Pick<
    WireBody<"/api/session-shares", "post">,
    "loginMethod" | "accessType" | "durationMinutes" | "maxViewers" | "watermarkEnabled"
  >
>;
export type ShareAction = WireBody<"/api/session-shares/{id}", "patch">;

export const ENDED = new Set(["revoked", "expired", "failed"]);
const key = (userId: string) => `sessionShares:${userId}`;

export class SessionShares {
  constructor(
    private readonly db: LocalDb,
    private readonly api: ApiClient,
    private readonly userId: string,
  ) {}

  async known(): Promise<KnownShare[]> {
    return (await this.db.meta<KnownShare[]>(key(this.userId))) ?? [];
  }

  async create(
    entry: { id: string; name: string; username: string; password: string },
    o: ShareOptions,
  ): Promise<KnownShare> {
    const res = await this.api.request(EP.createSessionShare, {
      body: {
        accountId: entry.id,
        decryptedUsername: entry.username,
        decryptedPassword: entry.password,
        ...o,
      },
    });
    const share: KnownShare = {
      id: res.id,
      entryId: entry.id,
      entryName: entry.name,
      shareUrl: new URL(res.shareUrl, location.origin).toString(),
      createdAt: new Date().toISOString(),
    };
    await navigator.locks.request(key(this.userId), async () =>
      this.db.setMeta(key(this.userId), [...(await this.known()), share]),
    );
    return share;
  }

  async view(id: string): Promise<ShareView> {
    return (await this.api.request(EP.sessionShare, { params: { id } })).session;
  }

  async act(id: string, a: ShareAction): Promise<ShareView> {
    return (
      await this.api.request(EP.patchSessionShare, {
        params: { id },
        body: a,
      })
    ).session;
  }

  async forget(id: string): Promise<void> {
    await navigator.locks.request(key(this.userId), async () =>
      this.db.setMeta(
        key(this.userId),
        (await this.known()).filter((s) => s.id !== id),
      ),
    );
  }
}
