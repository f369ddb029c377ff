import type { Page } from "@cloudflare/puppeteer";
import type { RoomConfig, RoomHooks } from "../../../durable-objects/session-share/room";
import { dbFor } from "../../db/client";
import { hasBrowserCapacity } from "../../db/live-browsers";
import { loadConfig, type Bindings } from "../../env";
import type { SealedColumn } from "../../db/reseal";
import { unseal } from "../../lib/crypto";
import { guardOptions } from "../../lib/guarded-fetch";
import { guardPageRequests } from "../../lib/page-guard";
import {
  automatedLogin,
  hasVisiblePasswordField,
  NO_REGISTRY_SELECTORS,
  PASSWORD_GUARD,
  VIEWPORT,
  watermarkScript,
} from "./browser";
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
    guardRequests: (page: Page) => guardPageRequests(page, guardOptions(loadConfig(env))),
    watermark: watermarkScript,
    async automatedLogin(room: RoomConfig, page: Page) {
      const row = await repo.findOwned(dbFor(env, room.ownerId), room.ownerId, room.id);
      if (!row) return { ok: false, reason: "session share missing" };
      const creds = JSON.parse(
        await unseal(
          loadConfig(env).dataKeys,
          row.sealedCredentials,
          credentialsAad(room.id, room.ownerId),
        ),
      ) as { u: string; p: string };
      const result = await automatedLogin(
        page,
        creds.u,
        creds.p,
        room.selectors ?? NO_REGISTRY_SELECTORS,
      );
      // The login is done: the site's session now lives in the browser, the password is not needed again.
      if (result.ok)
        await repo.update(dbFor(env, room.ownerId), room.ownerId, room.id, {
          sealedCredentials: repo.ERASED,
        });
      return result;
    },
    async mayStart(room: RoomConfig) {
      const config = loadConfig(env);
      return hasBrowserCapacity(env, room.ownerId, {
        perUser: config.MAX_LIVE_BROWSERS_PER_USER,
        global: config.MAX_LIVE_BROWSERS,
      });
    },
    async loggedIn(page: Page) {
      return !(await hasVisiblePasswordField(page).catch(() => true));
    },
    // An ended share (revoked, expired, failed) keeps no credentials.
    record: (room, patch) =>
      repo.update(
        dbFor(env, room.ownerId),
        room.ownerId,
        room.id,
        patch.endedAt ? { ...patch, sealedCredentials: repo.ERASED } : patch,
      ),
  };
}

/** Session-share credentials for the re-seal pass (D10); an erased value ("") is not JSON and is skipped. */
export const sessionShareCredentialsColumn: SealedColumn = {
  table: "session_shares",
  key: "id",
  column: "sealed_credentials",
  uses: ["owner_id"],
  aad: (r) => credentialsAad(r.id, r.owner_id),
};
