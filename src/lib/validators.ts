import { z } from "zod";

/** Base64 (standard or URL-safe alphabet, optional padding), as the spec's encrypted blobs are. */
export const base64String = z.string().regex(/^[A-Za-z0-9+/_-]*={0,2}$/, "must be base64");
export const hexString = z.string().regex(/^[0-9a-fA-F]+$/, "must be a hex string");
export const isoTimestamp = z.iso.datetime({ offset: true });
export const idParam = z.object({ id: z.string().min(1).max(128) });

/** Query-string booleans are the strings 'true' and 'false' (spec: unread_only, active_only). */
export const queryBoolean = z.enum(["true", "false"]).transform((v) => v === "true");
export const queryInt = (min: number, max: number, dflt: number) =>
  z
    .string()
    .regex(/^\d+$/, "must be an integer")
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .optional()
    .transform((v) => v ?? dflt);
