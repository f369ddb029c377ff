import { announceTopic } from "../../db/clock-announce";
import { dbFor, directoryDb, type Db } from "../../db/client";
import type { EmergencyContactRow } from "../../db/schema";
import { loadConfig, type Bindings, type Config } from "../../env";
import { mailerFor, sendQuietly, type Mailer } from "../notifications";
import { notify } from "../notifications";
import * as repo from "./repo";
import { rowsChanged } from "../../db/d1";
import { grantedMail } from "./mails";

export const RETRIEVAL_WINDOW_MS = 24 * 60 * 60 * 1000;
export const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

const iso = (t: number) => new Date(t).toISOString();

/**
 * The records live in the directory (`directory`), since owner and contact may be on different
 * shards; a notification, an audit event and the owner's entries on their user's shard (`dbOf`).
 * `config` lets notify() push (docs/decisions/client.md, "Client: entry tools and account pages").
 * `tell` gives the parties' open devices live sync's `emergency` topic after a committed change.
 */
export type EmergencyCtx = {
  directory: Db;
  dbOf: (userId: string) => Db;
  mailer: Mailer;
  appOrigin: string;
  config?: Config;
  tell: (row: EmergencyContactRow) => void;
};

export function emergencyCtx(env: Bindings, config: Config, callerId: string): EmergencyCtx {
  return {
    directory: directoryDb(env),
    dbOf: (userId) => dbFor(env, userId),
    mailer: mailerFor(config, dbFor(env, callerId), env.MAIL_QUEUE, directoryDb(env)),
    appOrigin: config.APP_ORIGIN ?? "",
    config,
    tell: (row) => announceTopic(env, [row.ownerId, row.contactUserId], "emergency"),
  };
}

/**
 * The record is found by its id in the directory; `ownerId` (absent from timers armed before it
 * was passed, then read from the record) chooses the shard whose outbox the run's mails go to.
 */
export async function runEmergencyTimer(
  env: Bindings,
  contactId: string,
  ownerId: string | undefined,
  now: number,
): Promise<number | null> {
  const owner = ownerId ?? (await repo.findById(directoryDb(env), contactId))?.ownerId;
  if (!owner) return null;
  return tickContact(emergencyCtx(env, loadConfig(env), owner), contactId, now);
}

/**
 * The automatic transitions (spec States): access_requested becomes access_granted when grant_at
 * passes without a response; access_granted becomes access_expired when the 24-hour window passes.
 * Returns when to wake next, or null. Also run inline before key retrieval, so a late alarm never
 * decides the answer.
 */
export async function tickContact(
  ctx: EmergencyCtx,
  contactId: string,
  now: number,
): Promise<number | null> {
  const row = await repo.findById(ctx.directory, contactId);
  if (!row) return null;
  if (row.status === "access_requested" && row.grantAt) {
    if (now < Date.parse(row.grantAt)) return Date.parse(row.grantAt);
    const expiresAt = now + RETRIEVAL_WINDOW_MS;
    const res = await repo.transition(ctx.directory, row.id, ["access_requested"], {
      status: "access_granted",
      grantedAt: iso(now),
      expiresAt: iso(expiresAt),
      updatedAt: iso(now),
    });
    if (rowsChanged(res) === 0) return now;
    await announceGrant(ctx, row, iso(expiresAt), true);
    return expiresAt;
  }
  if (row.status === "access_granted" && row.expiresAt) {
    if (now < Date.parse(row.expiresAt)) return Date.parse(row.expiresAt);
    const res = await repo.transition(ctx.directory, row.id, ["access_granted"], {
      status: "access_expired",
      updatedAt: iso(now),
    });
    if (rowsChanged(res) > 0) ctx.tell(row);
    return null;
  }
  return null;
}

/** Tells both sides that access has been granted (by the owner or because the wait ran out). */
export async function announceGrant(
  ctx: EmergencyCtx,
  row: EmergencyContactRow,
  expiresAt: string,
  automatic: boolean,
) {
  ctx.tell(row);
  const how = automatic ? "the waiting period passed without a response" : "the owner approved it";
  if (row.contactUserId) {
    await notify(ctx.dbOf(row.contactUserId), {
      userId: row.contactUserId,
      type: "emergency_access_granted",
      title: "Emergency access granted",
      body: `Your emergency access request was granted because ${how}. You can retrieve access until ${expiresAt}.`,
      color: "success",
      actionUrl: "/emergency",
      actorId: row.ownerId,
      metadata: { contact_id: row.id, expires_at: expiresAt },
    });
  }
  await sendQuietly(ctx.mailer, grantedMail(ctx.appOrigin, row.contactEmail, how, expiresAt));
  if (automatic) {
    await notify(ctx.dbOf(row.ownerId), {
      userId: row.ownerId,
      type: "emergency_access_granted",
      title: "Emergency access granted automatically",
      body: `${row.contactEmail} now has emergency access to your vault: the waiting period passed without a response.`,
      color: "warning",
      actionUrl: "/emergency",
      actorEmail: row.contactEmail,
      metadata: { contact_id: row.id, expires_at: expiresAt },
    });
  }
}
