import type { Context, Hono } from "hono";
import { dbFor, directoryDb } from "../../db/client";
import { route } from "../../http/route";
import type { AppEnv } from "../../http/types";
import { AppError, ErrorCode, notFound } from "../../lib/errors";
import { UPLOAD_BODY_LIMIT } from "../attachments";
import * as repo from "./repo";
import { notifyOpened } from "./notify-open";
import { openPage } from "./open-page";
import { mailerFor, sendQuietly } from "../notifications";
import { startAttempt } from "./recipients";
import {
  CodeBody,
  CodeResponse,
  CreateLinkBody,
  LinkIdParam,
  LinkResponse,
  ListResponse,
  OpenBody,
  OpenResponse,
  PublicMeta,
} from "./schema";
import { deliveryStream, gone, LinkService, toPublic, toView } from "./service";

const limits = (c: Context<AppEnv>) => ({
  maxOpen: c.get("config").SECURE_LINK_MAX_OPEN,
  quotaBytes: c.get("config").SECURE_LINK_QUOTA_BYTES,
  secret: c.get("config").CSRF_SECRET,
});

const ownerService = (c: Context<AppEnv>) =>
  new LinkService(
    {
      db: dbFor(c.env, c.get("user").id),
      directory: directoryDb(c.env),
      bucket: c.env.ATTACHMENTS,
    },
    limits(c),
  );

/** An opener has no account: the directory says whose shard holds the link its id names. */
async function publicService(c: Context<AppEnv>, id: string) {
  const directory = directoryDb(c.env);
  const ownerId = await repo.ownerOf(directory, id);
  if (!ownerId) throw notFound("Secure link");
  return {
    ownerId,
    svc: new LinkService(
      { db: dbFor(c.env, ownerId), directory, bucket: c.env.ATTACHMENTS },
      limits(c),
    ),
  };
}

/** An opener's body is an address or a verifier and a code: a few hundred bytes, parsed with no account. */
const PUBLIC_BODY_LIMIT = 4 * 1024;

/** The public answers carry the sender's bytes (base64 in JSON): no cache, no Referer, never sniffed as another type. */
const PUBLIC_HEADERS = {
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-robots-tag": "noindex, nofollow",
  "x-content-type-options": "nosniff",
};

export function registerLinkRoutes(app: Hono<AppEnv>) {
  route(app, {
    method: "post",
    path: "/api/links",
    summary:
      "Create a secure link: ciphertext made in the browser under a key that stays in the link's fragment",
    tags: ["links"],
    rateLimit: ["links_create"],
    bodyLimit: UPLOAD_BODY_LIMIT,
    body: CreateLinkBody,
    responses: {
      201: { description: "Created", schema: LinkResponse },
      413: { description: "Body over 36 MB" },
      422: { description: "Count or byte quota exceeded" },
    },
    handler: async (c, { body }) =>
      c.json({ link: toView(await ownerService(c).create(c.get("user"), body)) }, 201),
  });

  route(app, {
    method: "get",
    path: "/api/links",
    summary:
      "The caller's secure links, newest first, with views used, last opened, expiry and state",
    tags: ["links"],
    rateLimit: ["links_manage"],
    responses: { 200: { description: "Links and quota usage", schema: ListResponse } },
    handler: async (c) => c.json(await ownerService(c).list(c.get("user").id)),
  });

  route(app, {
    method: "delete",
    path: "/api/links/:id",
    summary: "Revoke a secure link: it stops opening and its ciphertext is deleted at once",
    tags: ["links"],
    rateLimit: ["links_manage"],
    params: LinkIdParam,
    responses: { 200: { description: "Revoked", schema: LinkResponse } },
    handler: async (c, { params }) =>
      c.json({ link: toView(await ownerService(c).revoke(c.get("user").id, params.id)) }),
  });

  route(app, {
    method: "get",
    path: "/api/links/public/:id",
    summary: "What an opener needs before opening (state, passphrase salt); no account, no content",
    tags: ["links"],
    auth: false,
    rateLimit: ["links_open"],
    params: LinkIdParam,
    responses: { 200: { description: "The link's public facts", schema: PublicMeta } },
    handler: async (c, { params }) => {
      const { svc } = await publicService(c, params.id);
      return c.json(await svc.meta(params.id), 200, PUBLIC_HEADERS);
    },
  });

  route(app, {
    method: "post",
    path: "/api/links/public/:id/code",
    summary:
      "Ask for a one-time code for a recipients-only link; the same answer whether or not the address is listed",
    tags: ["links"],
    auth: false,
    csrf: false,
    bodyLimit: PUBLIC_BODY_LIMIT,
    rateLimit: ["links_open", "links_code"],
    params: LinkIdParam,
    body: CodeBody,
    responses: {
      202: {
        description: "An open attempt; a code was mailed if the address may open the link",
        schema: CodeResponse,
      },
      409: { description: "The link is not limited to addresses" },
      413: { description: "Body over 4 KB" },
      410: { description: "Expired, used up, revoked or locked (state)" },
      429: { description: "Too many codes asked for this link or this address" },
    },
    handler: async (c, { params, body }) => {
      const { svc, ownerId } = await publicService(c, params.id);
      const row = await svc.found(params.id);
      const meta = toPublic(row);
      if (meta.state !== "active") throw gone(meta.state);
      if (!row.recipientHashes)
        throw new AppError(ErrorCode.CONFLICT, "This link is not limited to email addresses");
      const db = dbFor(c.env, ownerId);
      const mailer = mailerFor(c.get("config"), db, c.env.MAIL_QUEUE, directoryDb(c.env));
      // The mail goes out beside the answer: a listed address must not answer slower than another.
      const attempt = await startAttempt(db, c.get("config").CSRF_SECRET, row, body.email, (mail) =>
        c.executionCtx.waitUntil(sendQuietly(mailer, mail)),
      );
      return c.json(attempt, 202, PUBLIC_HEADERS);
    },
  });

  route(app, {
    method: "post",
    path: "/api/links/public/:id/open",
    summary:
      "Count one view and deliver the ciphertext; a wrong passphrase counts a failure instead",
    tags: ["links"],
    auth: false,
    csrf: false,
    bodyLimit: PUBLIC_BODY_LIMIT,
    rateLimit: ["links_open"],
    params: LinkIdParam,
    body: OpenBody,
    responses: {
      200: { description: "The link's facts and its ciphertext (base64)", schema: OpenResponse },
      403: { description: "Passphrase or email code missing or wrong (reason, attempts_left)" },
      413: { description: "Body over 4 KB" },
      410: { description: "Expired, used up, revoked or locked (state)" },
    },
    handler: async (c, { params, body }) => {
      const { svc } = await publicService(c, params.id);
      const code =
        body.challenge && body.code ? { challenge: body.challenge, code: body.code } : undefined;
      const { row, body: content } = await svc.open(params.id, body.verifier, code);
      const country = (c.req.raw as { cf?: { country?: string } }).cf?.country;
      const db = dbFor(c.env, row.ownerId);
      await notifyOpened(db, c.get("config"), row, country, (p) => c.executionCtx.waitUntil(p));
      return new Response(deliveryStream(toPublic(row), content), {
        status: 200,
        headers: { "content-type": "application/json; charset=utf-8", ...PUBLIC_HEADERS },
      });
    },
  });

  app.get("/l/:id", (c) => openPage(c));
}
