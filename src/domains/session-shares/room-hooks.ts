import type { Page } from "@cloudflare/puppeteer";
import type { RoomConfig, RoomHooks } from "../../../durable-objects/session-share/room";
import { dbFor } from "../../db/client";
import type { Bindings } from "../../env";
import { unseal } from "../../lib/crypto";
import { automatedLogin, hasVisiblePasswordField, NO_REGISTRY_SELECTORS, PASSWORD_GUARD, VIEWPORT, watermarkScript } from "./browser";
import * as repo from "./repo";

/** Maps a stored sealed credential to its AAD, shared by the sealer (service) and the login hook. */
export const credentialsAad = (id: string, ownerId: string) => `session-share:${id}:${ownerId}`;

/**
 * What a SessionShareRoom does that is this domain's: the tab's guard and watermark, the login with
 * the owner's sealed credentials (unsealed only here, inside the room's isolate, and never sent
 * anywhere), and the room's state written to the owner's records.
 */
export function sessionShareRoomHooks(env: Bindings): RoomHooks {
  return {
    viewport: VIEWPORT,
    pageGuard: PASSWORD_GUARD,
    watermark: watermarkScript,
    async automatedLogin(room: RoomConfig, page: Page) {
      const row = await repo.findOwned(dbFor(env, room.ownerId), room.ownerId, room.id);
      if (!row) return { ok: false, reason: "session share missing" };
      const creds = JSON.parse(await unseal(env.DATA_ENCRYPTION_KEY as string, row.sealedCredentials, credentialsAad(room.id, room.ownerId))) as { u: string; p: string };
      return automatedLogin(page, creds.u, creds.p, room.selectors ?? NO_REGISTRY_SELECTORS);
    },
    async loggedIn(page: Page) {
      return !(await hasVisiblePasswordField(page).catch(() => true));
    },
    record: (room, patch) => repo.update(dbFor(env, room.ownerId), room.ownerId, room.id, patch),
  };
}
