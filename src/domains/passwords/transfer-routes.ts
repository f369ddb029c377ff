import type { Context, Hono } from "hono";
import { dbFor } from "../../db/client";
import { entryIdClaims } from "../../db/entry-ids";
import { route } from "../../http/route";
import { requestMeta, type AppEnv } from "../../http/types";
import { AppError, ErrorCode } from "../../lib/errors";
import {
  ExportResponse,
  IMPORT_BODY_LIMIT,
  ImportBody,
  ImportResponse,
  PLAIN_EXPORT_MAX_AGE,
  PlainExportResponse,
} from "./transfer-schema";
import { vaultLimits } from "./repo";
import { ImportService } from "./transfer-service";

const dbOf = (c: Context<AppEnv>) => dbFor(c.env, c.get("user").id);
const max = (c: Context<AppEnv>) => vaultLimits(c.get("config"));

/** When the plaintext import path was retired (RFC 9745 `Deprecation` takes an epoch-seconds date). */
const PLAINTEXT_IMPORT_DEPRECATED_AT = Date.UTC(2025, 0, 1) / 1000;

/** Import and export of whole vaults; registered before `/api/passwords/:id` so the literal paths win. */
export function registerTransferRoutes(app: Hono<AppEnv>) {
  route(app, {
    method: "post",
    path: "/api/passwords/import",
    summary: "Import up to 5,000 pre-encrypted V3 entries in batches of 50",
    tags: ["passwords"],
    rateLimit: ["passwords"],
    stepUp: { maxAge: 300, sensitive: true },
    bodyLimit: IMPORT_BODY_LIMIT,
    idempotent: true,
    body: ImportBody,
    responses: {
      200: {
        description: "How many entries went in, and one error per failed batch",
        schema: ImportResponse,
      },
    },
    handler: async (c, { body }) =>
      c.json(
        await new ImportService(dbOf(c), max(c), entryIdClaims(c.env), c.env).import(
          c.get("user").id,
          body.entries,
          body.provider,
          requestMeta(c.req),
        ),
      ),
  });

  route(app, {
    method: "get",
    path: "/api/passwords/export",
    summary:
      "Every live V3 entry's envelope and plaintext metadata, in the shape the import endpoint accepts",
    tags: ["passwords"],
    rateLimit: ["passwords"],
    stepUp: { sensitive: true, denyUnknownDevice: true },
    responses: { 200: { description: "The export document", schema: ExportResponse } },
    handler: async (c) => {
      const doc = await new ImportService(dbOf(c), max(c), entryIdClaims(c.env), c.env).export(
        c.get("user").id,
        requestMeta(c.req),
      );
      const res = c.json(doc);
      res.headers.set("Cache-Control", "no-store");
      res.headers.set(
        "Content-Disposition",
        `attachment; filename="vault-export-${doc.exported_at.slice(0, 10)}.json"`,
      );
      return res;
    },
  });

  route(app, {
    method: "post",
    path: "/api/passwords/export/plain",
    summary:
      "Record a plaintext (CSV) export about to be written on the device; needs a sign-in of at most 300 s from any device",
    tags: ["passwords"],
    rateLimit: ["passwords"],
    // Whatever the device's trust: a file anyone can read is the one export a borrowed unlocked
    // session must not make without the person proving they are there.
    stepUp: { maxAge: PLAIN_EXPORT_MAX_AGE, denyUnknownDevice: true },
    responses: {
      200: {
        description: "The export may go ahead; it is in the audit log",
        schema: PlainExportResponse,
      },
    },
    handler: async (c) => {
      await new ImportService(dbOf(c), max(c), entryIdClaims(c.env), c.env).recordPlainExport(
        c.get("user").id,
        requestMeta(c.req),
      );
      const res = c.json({ success: true as const });
      res.headers.set("Cache-Control", "no-store");
      return res;
    },
  });

  route(app, {
    method: "post",
    path: "/api/integrations/import",
    summary: "Deprecated plaintext CSV import; always 400 (use POST /api/passwords/import)",
    tags: ["passwords"],
    deprecated: true,
    responses: { 400: { description: "Deprecated plaintext import" } },
    handler: () => {
      throw new AppError(
        ErrorCode.VALIDATION_ERROR,
        "The plaintext import path is deprecated: encrypt entries on the client and use POST /api/passwords/import",
        {
          headers: {
            Deprecation: `@${PLAINTEXT_IMPORT_DEPRECATED_AT}`,
            Link: '</api/passwords/import>; rel="successor-version"',
          },
        },
      );
    },
  });
}
