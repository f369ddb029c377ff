import type { Browser, Page } from "@cloudflare/puppeteer";
import { taskProgress, type TaskProgressClient } from "../../../durable-objects/task-progress";
import { dbFor, directoryDb, type Db } from "../../db/client";
import type { TaskStep, ResetTaskRow } from "../../db/schema";
import { loadConfig, type Bindings, type Config } from "../../env";
import { AppError } from "../../lib/errors";
import { guardOptions } from "../../lib/guarded-fetch";
import { guardPageRequests } from "../../lib/page-guard";
import { listActiveMailboxes, openMailbox, type Mailbox } from "../integrations";
import { resolveService, type ResolvedService } from "../registry";
import {
  asksForCode,
  enterOtp,
  FlowFailure,
  launchBrowser,
  stepEnterEmail,
  stepFollowLink,
  stepNavigate,
  stepSetPassword,
} from "./browser-flow";
import { sealToClient } from "./jwe";
import { waitForResetMail, type FoundMail } from "./mail";
import { generatePassword, meetsRequirements } from "./password-generator";
import { claimForRun, leaseUntil, QUEUE_MAX_RETRIES, STOPPED_TYPING, typedBefore } from "./lease";
import { recordResetOutcome } from "./outcome";
import * as repo from "./repo";
import { STEP_NAMES } from "./service";
import { errorName, logJson } from "../../lib/log";

export type ResetMessage = { taskId: string; userId: string };
/** Messages queued before the rename named the task `jobId`; a deploy may find some still waiting. */
const current = (m: ResetMessage | { jobId: string; userId: string }): ResetMessage =>
  "jobId" in m ? { taskId: m.jobId, userId: m.userId } : m;

/** Retries with exponential backoff for failures of our side (the browser could not start). */
class Transient extends Error {}
/** Another run has taken the task over (this one was presumed dead); stop without writing. */
class LeaseLost extends Error {}

const backoff = (attempts: number) => Math.min(300, 5 * 2 ** attempts);

/**
 * One message, one task. A task is run only under a lease (see lease.ts): a redelivery while the
 * lease is live comes back when it could have expired; one after a dead worker's lease ran out
 * takes the task over. Errors outside the flow (D1, the progress object) are retried with backoff.
 */
export async function consumeResetBatch(
  batch: MessageBatch<ResetMessage>,
  env: Bindings,
): Promise<void> {
  for (const msg of batch.messages) {
    const body = current(msg.body);
    const lastAttempt = msg.attempts > QUEUE_MAX_RETRIES;
    try {
      const out = await runResetTask(env, body, { lastAttempt });
      if (!out.retryAfterSeconds) msg.ack();
      else if (!lastAttempt) msg.retry({ delaySeconds: out.retryAfterSeconds });
      else {
        // A live lease outlasted this message's retries: a fresh message keeps watching the task, so
        // a worker that dies later is still taken over. Bounded: each takeover counts a run.
        await env.RESET_QUEUE.send(body, { delaySeconds: out.retryAfterSeconds });
        msg.ack();
      }
    } catch (err) {
      if (!(err instanceof Transient))
        logJson("error", "reset task crashed", { error: errorName(err) });
      msg.retry({ delaySeconds: backoff(msg.attempts) });
    }
  }
}

/** `notes` are facts about the run that every later status event repeats (the stream replays the latest one). */
type Ctx = {
  env: Bindings;
  config: Config;
  task: ResetTaskRow;
  leaseId: string;
  steps: TaskStep[];
  progress: TaskProgressClient;
  cancelled: AbortSignal;
  notes: Record<string, string>;
};

/** How often a run looks for the owner's cancellation (DECISIONS D17) while it works or waits. */
const CANCEL_POLL_MS = 1000;

/** Every write renews the lease; a write refused because the lease moved on stops this run. */
async function setStatus(ctx: Ctx, status: string, extra: Record<string, unknown> = {}) {
  const now = new Date().toISOString();
  const terminal = ["completed", "failed", "cancelled"].includes(status);
  const kept = await repo.updateLeased(
    dbFor(ctx.env, ctx.task.userId),
    ctx.task.userId,
    ctx.task.id,
    ctx.leaseId,
    {
      status,
      steps: ctx.steps,
      updatedAt: now,
      leaseExpiresAt: terminal ? now : leaseUntil(ctx.config),
      ...(terminal ? { completedAt: now } : {}),
      ...(typeof extra.error === "string" ? { error: extra.error } : {}),
    },
  );
  if (!kept) throw new LeaseLost();
  if (status === "completed" || status === "failed") {
    const outcome =
      status === "completed"
        ? ({ status } as const)
        : ({ status, error: String(extra.error ?? "failed") } as const);
    await recordResetOutcome(dbFor(ctx.env, ctx.task.userId), ctx.task, outcome);
  }
  await ctx.progress.publish({ event: "status", data: { status, ...ctx.notes, ...extra } });
}

async function step<T>(ctx: Ctx, name: string, status: string, fn: () => Promise<T>): Promise<T> {
  const s = ctx.steps.find((x) => x.name === name) as TaskStep;
  s.status = "running";
  await setStatus(ctx, status, { step: name });
  const t0 = Date.now();
  try {
    const out = await fn();
    s.status = "completed";
    s.duration = Date.now() - t0;
    return out;
  } catch (err) {
    s.status = "failed";
    s.duration = Date.now() - t0;
    throw err;
  }
}

function reasonOf(err: unknown): string {
  if (err instanceof FlowFailure) return err.message;
  if (err instanceof AppError)
    return err.details?.[0] ? `refused destination (${err.details[0].field})` : err.message;
  if (err instanceof Error && /timeout|navigation/i.test(err.message))
    return "the site did not respond in time";
  return "the automation stopped unexpectedly";
}

export async function runResetTask(
  env: Bindings,
  m: ResetMessage,
  opts: { lastAttempt?: boolean } = {},
): Promise<{ retryAfterSeconds?: number }> {
  const config = loadConfig(env);
  const db = dbFor(env, m.userId);
  const claim = await claimForRun(env, config, db, m.userId, m.taskId);
  if ("done" in claim) return {};
  if ("retryAfterSeconds" in claim) return claim;
  const { task, leaseId } = claim;
  const progress = taskProgress(env.TASK_PROGRESS, task.id);
  if (task.runs > 1 && typedBefore(task)) {
    // The run before died with the password in the site's form: running again would set another
    // one on top of a password the owner may never learn. The held one is delivered instead.
    const steps = task.steps.map((s) => ({
      ...s,
      status: s.status === "running" ? "failed" : s.status === "pending" ? "skipped" : s.status,
    }));
    const held = await progress.heldPassword();
    await setStatus(
      {
        env,
        config,
        task,
        leaseId,
        steps,
        progress,
        cancelled: new AbortController().signal,
        notes: {},
      },
      "failed",
      { error: STOPPED_TYPING, ...(held ? { newPassword: held } : {}) },
    ).catch((e) => {
      if (!(e instanceof LeaseLost)) throw e;
    });
    return {};
  }
  const steps: TaskStep[] =
    task.runs > 1
      ? STEP_NAMES.map((name) => ({ name, status: "pending", duration: null }))
      : task.steps.map((s) => ({ ...s }));
  const cancel = new AbortController();
  const ctx: Ctx = {
    env,
    config,
    task,
    leaseId,
    steps,
    progress,
    cancelled: cancel.signal,
    notes: {},
  };
  const hooks = {
    screenshot: (url: string) => ctx.progress.publish({ event: "screenshot", data: { url } }),
  };
  const svc = await resolveService(directoryDb(env), task.serviceUrl);
  let browser: Browser | undefined;
  // A cancelled run stops where it is: waits end through the signal, and closing the browser ends
  // a page step; the next status write is then refused (repo.updateLeased) and the run returns.
  const watch = setInterval(() => {
    void ctx.progress.isCancelled().then(
      (yes) => {
        if (!yes || cancel.signal.aborted) return;
        cancel.abort();
        void browser?.close().catch(() => undefined);
      },
      () => undefined,
    );
  }, CANCEL_POLL_MS);
  let sealed: string | undefined;
  try {
    if (!task.clientPublicKey)
      throw new FlowFailure("no clientPublicKey to deliver the new password to");
    const mailbox = await mailboxFor(env, config, db, m.userId, task.email);
    const t0 = Date.now();
    try {
      browser = await launchBrowser(env);
    } catch (err) {
      if (err instanceof FlowFailure) throw err;
      if (opts.lastAttempt) throw new FlowFailure("the browser could not start");
      await repo.updateLeased(db, m.userId, task.id, leaseId, {
        status: "pending",
        leaseId: null,
        leaseExpiresAt: null,
        updatedAt: new Date().toISOString(),
      });
      throw new Transient("browser unavailable");
    }
    const launchMs = Date.now() - t0;
    logJson("info", "reset browser launched", { task: task.id, launchMs });
    (ctx.steps.find((s) => s.name === "navigate") as TaskStep).launchMs = launchMs;
    const page: Page = await browser.newPage();
    await guardPageRequests(page, guardOptions(config));
    const requestedAt = new Date();
    await step(ctx, "navigate", "running", () =>
      stepNavigate(page, config, svc, task.serviceUrl, hooks),
    );
    await step(ctx, "enter_email", "running", () => stepEnterEmail(page, svc, task.email, hooks));
    const codePage = await asksForCode(page);
    const found = await step(
      ctx,
      "wait_for_email",
      codePage ? "waiting_for_otp" : "waiting_for_email",
      () =>
        codePage
          ? mailOrUserCode(ctx, mailbox, svc, requestedAt)
          : mailOnly(ctx, mailbox, svc, requestedAt),
    );
    // A code from a mailbox that gives no authentication verdict was used unverified: the task says so.
    if (found.otp && found.mailAuthentication === "none") ctx.notes.mailAuthentication = "none";
    await step(ctx, "follow_link", "running", async () => {
      if (found.link) return stepFollowLink(page, config, found.link, hooks);
      await enterOtp(page, svc, found.otp as string, hooks);
    });
    const password = generatePassword(svc.passwordRequirements);
    if (!meetsRequirements(password, svc.passwordRequirements))
      throw new FlowFailure("could not generate a password meeting the requirements");
    // Sealed and held before the site is given it: a password typed and then lost (this run
    // failing or dying before the end) would lock the owner out of the account.
    sealed = await sealToClient(task.clientPublicKey, password);
    await ctx.progress.holdPassword(sealed);
    await step(ctx, "set_password", "running", () => stepSetPassword(page, svc, password, hooks));
    await setStatus(ctx, "completed", { newPassword: sealed });
  } catch (err) {
    if (err instanceof Transient) throw err;
    if (err instanceof LeaseLost) return {};
    for (const s of ctx.steps) if (s.status === "pending") s.status = "skipped";
    // Once the site has been given the password it may be in effect, whatever went wrong after.
    const typed =
      sealed &&
      ctx.steps.some(
        (s) => s.name === "set_password" && s.status !== "pending" && s.status !== "skipped",
      );
    await setStatus(ctx, "failed", {
      error: reasonOf(err),
      ...(typed ? { newPassword: sealed } : {}),
    }).catch((e) => {
      if (!(e instanceof LeaseLost)) throw e;
    });
  } finally {
    clearInterval(watch);
    await browser?.close().catch(() => undefined);
  }
  return {};
}

/**
 * The mailbox the reset mail is read from: the connected one whose address the reset was asked
 * for (D17), through IMAP or its provider's API. Disconnected since: the run fails.
 */
async function mailboxFor(
  env: Bindings,
  config: Config,
  db: Db,
  userId: string,
  email: string,
): Promise<Mailbox> {
  const box = (await listActiveMailboxes(db, userId)).find(
    (b) => b.email.toLowerCase() === email.toLowerCase(),
  );
  if (!box) throw new FlowFailure("the mailbox for this address is no longer connected");
  return openMailbox(env, config, userId, box);
}

async function mailOnly(
  ctx: Ctx,
  mailbox: Mailbox,
  svc: ResolvedService,
  since: Date,
): Promise<FoundMail> {
  const mail = await waitForResetMail(
    mailbox,
    svc,
    since,
    Date.now() + ctx.config.RESET_EMAIL_WAIT_SECONDS * 1000,
    ctx.cancelled,
  );
  if (!mail) throw new FlowFailure("no reset email arrived in time");
  return mail;
}

/**
 * The page asks for a code: it may come by mail (the service's otp patterns) or from the user
 * (POST /api/tasks/<id>/otp, for a code sent by text message or a mail the patterns miss).
 * Whichever arrives first within the bound wins; the other wait is stopped.
 */
async function mailOrUserCode(
  ctx: Ctx,
  mailbox: Mailbox,
  svc: ResolvedService,
  since: Date,
): Promise<FoundMail> {
  const deadline = Date.now() + ctx.config.RESET_EMAIL_WAIT_SECONDS * 1000;
  const stop = new AbortController();
  if (ctx.cancelled.aborted) stop.abort();
  else ctx.cancelled.addEventListener("abort", () => stop.abort(), { once: true });
  const fromMail = waitForResetMail(mailbox, svc, since, deadline, stop.signal).then(
    (m) => m ?? null,
  );
  const fromUser = (async (): Promise<FoundMail | null> => {
    while (Date.now() < deadline && !stop.signal.aborted) {
      const code = await ctx.progress.takeOtp();
      if (code) return { link: null, otp: code };
      await new Promise<void>((r) => {
        const t = setTimeout(r, 500);
        stop.signal.addEventListener("abort", () => (clearTimeout(t), r()), { once: true });
      });
    }
    return null;
  })();
  let found: FoundMail | null;
  try {
    found =
      (await Promise.race([fromMail, fromUser])) ??
      (await Promise.all([fromMail, fromUser])).find((x) => x !== null) ??
      null;
  } finally {
    stop.abort();
    await Promise.allSettled([fromMail, fromUser]);
  }
  if (!found) throw new FlowFailure("no code was supplied in time");
  return found;
}
