import { RecoveryTimerBase, type TimerTick } from "../durable-objects/recovery-timer";
import { SessionShareRoomBase } from "../durable-objects/session-share/room";
import { TokenRefresherBase, type TokenSource } from "../durable-objects/token-refresher";
import { buildApp } from "./app";
import { runDeadManSwitchTimer } from "./domains/dead-man-switch";
import { runEmergencyTimer } from "./domains/emergency";
import { freshToken, type FreshToken } from "./domains/integrations";
import type { OAuthProvider } from "./domains/integrations";
import {
  consumeMailBatch,
  MAIL_QUEUE_NAME,
  retryParkedMail,
  type MailMessage,
} from "./domains/notifications";
import { consumeResetBatch, type ResetMessage } from "./domains/reset";
import { sessionShareRoomHooks } from "./domains/session-shares";
import { purgeExpiredTombstones } from "./domains/sync";
import { purgeEndedSessionShares } from "./domains/session-shares";
import { purgeSecureLinks } from "./domains/links";
import { legacyTotpSecretsColumn } from "./domains/entry-totp";
import { identityAliasKeysColumn } from "./domains/identities";
import { mailSecretsColumn } from "./domains/integrations";
import { sessionShareCredentialsColumn } from "./domains/session-shares";
import { twoFactorSecretsColumn } from "./domains/two-factor";
import { directoryDb, eachShard } from "./db/client";
import { runBackup } from "./domains/backup";
import { resealColumn } from "./db/reseal";
import { BACKUP_CRON } from "./kernel/crons";
import { loadConfig, type Bindings } from "./env";
import { logJson, withLogContext } from "./lib/log";

export { RateLimiter } from "../durable-objects/rate-limiter";
export { IdempotencyStore } from "../durable-objects/idempotency";
export { TaskProgress } from "../durable-objects/task-progress";
export { LiveSyncHub } from "../durable-objects/live-sync-hub";

/*
 * Durable Objects are leaves (durable-objects/): what they run that is a domain's is registered
 * here, the one module that knows both sides.
 */
const recoveryTick: TimerTick<Bindings> = (env, target, now) =>
  target.kind === "dead_man_switch"
    ? runDeadManSwitchTimer(env, target.userId, now)
    : runEmergencyTimer(env, target.contactId, target.ownerId, now);

export class RecoveryTimer extends RecoveryTimerBase<Bindings> {
  protected tick = recoveryTick;
}

const tokenSource: TokenSource<Bindings, FreshToken> = (env, userId, provider, force) =>
  freshToken(env, userId, provider as OAuthProvider, force);

export class TokenRefresher extends TokenRefresherBase<Bindings, FreshToken> {
  protected source = tokenSource;
}

export class SessionShareRoom extends SessionShareRoomBase<Bindings> {
  protected roomHooks = sessionShareRoomHooks;
}

const app = buildApp();

/**
 * Every column of server-held secrets (D10). OAuth PKCE verifiers (oauth_states) are left out: they
 * live ten minutes, so keep a retired key in DATA_ENCRYPTION_KEYS_PREVIOUS that long.
 */
const SEALED_COLUMNS = [
  mailSecretsColumn,
  sessionShareCredentialsColumn,
  legacyTotpSecretsColumn,
  twoFactorSecretsColumn,
  identityAliasKeysColumn,
];

/** The cron's re-seal pass: values under a previous data key move to the current one, in chunks. */
async function resealStale(env: Bindings): Promise<string> {
  const keys = loadConfig(env).dataKeys;
  const parts: string[] = [];
  // Every sealed column is a user's, so the pass runs on each shard.
  for (const { shard, db } of eachShard(env)) {
    for (const column of SEALED_COLUMNS) {
      const r = await resealColumn(db, keys, column);
      parts.push(`${shard} ${column.table}.${column.column} ${r.resealed} (${r.failed} failed)`);
    }
  }
  return parts.join(", ");
}

/** One backup step: continues the unfinished backup, or starts one when BACKUP_INTERVAL_HOURS have passed. */
async function backupTick(env: Bindings, now: Date): Promise<string> {
  if (!env.BACKUP_BUCKET) return "no BACKUP_BUCKET bound: backups are off";
  const config = loadConfig(env);
  const r = await runBackup(env, env.BACKUP_BUCKET, {
    now,
    retentionDays: config.BACKUP_RETENTION_DAYS,
    intervalHours: config.BACKUP_INTERVAL_HOURS,
  });
  if (!r.id) return "no backup due";
  return `${r.id}: ${r.chunks} chunks, ${r.rows} rows, ${r.objects} objects this step${r.done ? ", complete" : ", continues next time"}${r.deleted.length ? `; retired ${r.deleted.join(", ")}` : ""}`;
}

export default {
  fetch: app.fetch,
  // A cron or a queue batch has no request: its lines carry the trigger instead (src/lib/log.ts).
  scheduled: (controller, env, ctx) =>
    withLogContext({ cron: controller.cron }, () => {
      if (controller.cron === BACKUP_CRON) {
        ctx.waitUntil(
          backupTick(env, new Date(controller.scheduledTime)).then((summary) =>
            logJson("info", "backup", { summary }),
          ),
        );
        return;
      }
      ctx.waitUntil(
        purgeExpiredTombstones(env).then((purged) =>
          logJson("info", "expired sync tombstones purged", { purged }),
        ),
      );
      ctx.waitUntil(
        purgeEndedSessionShares(env).then((purged) =>
          logJson("info", "ended session shares purged", { purged }),
        ),
      );
      ctx.waitUntil(purgeSecureLinks(env).then((r) => logJson("info", "secure links purged", r)));
      ctx.waitUntil(
        retryParkedMail(loadConfig(env), directoryDb(env)).then((r) =>
          logJson("info", "retry outbox", {
            sent: r.sent,
            retried: r.retried,
            deadLettered: r.deadLettered,
          }),
        ),
      );
      ctx.waitUntil(
        resealStale(env).then((summary) =>
          logJson("info", "re-sealed under the current data key", { summary }),
        ),
      );
    }),
  // One consumer per queue of wrangler.toml, told apart by the queue's name.
  queue: (batch, env) =>
    withLogContext({ queue: batch.queue }, () =>
      batch.queue === MAIL_QUEUE_NAME
        ? consumeMailBatch(batch as MessageBatch<MailMessage>, loadConfig(env), directoryDb(env))
        : consumeResetBatch(batch as MessageBatch<ResetMessage>, env),
    ),
} satisfies ExportedHandler<Bindings, ResetMessage | MailMessage>;
