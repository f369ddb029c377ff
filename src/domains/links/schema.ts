import { z } from "zod";
import { emailAddress } from "../../kernel/schemas";
import { decodedLength, GCM_TAG_BYTES, IV_BYTES, sealedBase64 } from "../attachments";

/** Spec-free choices (docs/decisions/sharing.md, "Sharing: secure links (a secret or a file for anyone, the key in the link)"). */
export const MIN_EXPIRY_SECONDS = 60 * 60;
export const MAX_EXPIRY_SECONDS = 30 * 24 * 60 * 60;
export const MAX_VIEWS = 100;
/** Wrong passphrases a link takes before it locks for good. */
export const MAX_FAILED_ATTEMPTS = 5;
export const SALT_BYTES = 16;
/** Addresses a link may be limited to; each proves itself with a mailed one-time code. */
export const MAX_RECIPIENTS = 10;
export const CODE_TTL_MS = 10 * 60 * 1000;
/** Wrong codes one open attempt takes before its code stops working (a new code is needed). */
export const MAX_CODE_ATTEMPTS = 5;
/**
 * Wrong codes a link takes, over all its attempts and addresses, before it locks for good, as
 * MAX_FAILED_ATTEMPTS does for passphrases: a guesser's chance stays 20 in a million per link.
 */
export const MAX_FAILED_CODES = 20;
/** Codes one address may ask for on one link within CODE_WINDOW_MS: bounds mail to a listed address. */
export const MAX_CODES_PER_ADDRESS = 3;
/**
 * Attempts one link takes within CODE_WINDOW_MS over all addresses: only a bound on the rows a
 * flood stores, far above what recipients use, since anyone can spend it (20 IPs at the per-IP limit).
 */
export const MAX_CODES_PER_WINDOW = 100;
export const CODE_WINDOW_MS = 10 * 60 * 1000;
export const VERIFIER_BYTES = 32;
/** A link id: 16 random bytes in base64url, unguessable on its own (the key is a second secret). */
export const LINK_ID = /^[A-Za-z0-9_-]{22}$/;

const b64Exact = (bytes: number) =>
  z.string().superRefine((v, ctx) => {
    if (decodedLength(v) !== bytes)
      ctx.addIssue({ code: "custom", message: `must be standard base64 of ${bytes} bytes` });
  });

const CipherPart = z
  .object({
    iv: b64Exact(IV_BYTES),
    ciphertext: z
      .string()
      .max(400)
      .superRefine((v, ctx) => {
        const n = decodedLength(v);
        if (n < GCM_TAG_BYTES || n > 256)
          ctx.addIssue({
            code: "custom",
            message: "must be base64 of AES-GCM output up to 256 bytes",
          });
      }),
  })
  .strict();

export const CreateLinkBody = z
  .object({
    kind: z.enum(["text", "file"]),
    /** IV ‖ AES-GCM ciphertext under the fragment's key, base64; the server cannot open it. */
    content: sealedBase64("content exceeds 25 MB"),
    expires_in_seconds: z.number().int().min(MIN_EXPIRY_SECONDS).max(MAX_EXPIRY_SECONDS),
    max_views: z.number().int().min(1).max(MAX_VIEWS),
    passphrase: z
      .object({ salt: b64Exact(SALT_BYTES), verifier: b64Exact(VERIFIER_BYTES) })
      .strict()
      .optional(),
    hide_sender: z.boolean().default(false),
    label: CipherPart.optional(),
    /** Only these addresses may open it; kept as keyed hashes, never readable. */
    recipients: z.array(emailAddress()).min(1).max(MAX_RECIPIENTS).optional(),
  })
  .strict();
export type CreateLinkInput = z.output<typeof CreateLinkBody>;

export const LinkIdParam = z.object({ id: z.string().regex(LINK_ID, "must be a link id") });
export const OpenBody = z
  .object({
    verifier: b64Exact(VERIFIER_BYTES).optional(),
    /** For a recipients-only link: the open attempt the code was mailed for, and the code. */
    challenge: z.string().regex(LINK_ID, "must be a challenge id").optional(),
    code: z
      .string()
      .regex(/^\d{6}$/, "must be 6 digits")
      .optional(),
  })
  .strict()
  .refine((b) => (b.challenge === undefined) === (b.code === undefined), {
    message: "challenge and code go together",
    path: ["code"],
  });
export const CodeBody = z.object({ email: emailAddress() }).strict();
export const CodeResponse = z.object({
  challenge: z.string(),
  expires_at: z.string(),
  message: z.string(),
});

export const LINK_STATES = ["active", "expired", "used_up", "revoked", "locked"] as const;
export type LinkState = (typeof LINK_STATES)[number];

export const LinkView = z.object({
  id: z.string(),
  kind: z.enum(["text", "file"]),
  size: z.number().int(),
  state: z.enum(LINK_STATES),
  max_views: z.number().int(),
  views_used: z.number().int(),
  expires_at: z.string(),
  last_opened_at: z.string().nullable(),
  created_at: z.string(),
  has_passphrase: z.boolean(),
  hide_sender: z.boolean(),
  recipients: z.number().int(),
  label: z.object({ iv: z.string(), ciphertext: z.string() }).nullable(),
});
export const LinkResponse = z.object({ link: LinkView });
export const ListResponse = z.object({
  links: z.array(LinkView),
  usage: z.object({
    open: z.number().int(),
    max_open: z.number().int(),
    bytes: z.number().int(),
    quota_bytes: z.number().int(),
  }),
});
export const PublicMeta = z.object({
  id: z.string(),
  kind: z.enum(["text", "file"]),
  size: z.number().int(),
  state: z.enum(LINK_STATES),
  expires_at: z.string(),
  views_left: z.number().int(),
  sender_email: z.string().nullable(),
  passphrase: z.object({ salt: z.string(), attempts_left: z.number().int() }).nullable(),
  recipients_only: z.boolean(),
});
/** A delivery: streamed by the handler, so the ciphertext is never held whole on the server. */
export const OpenResponse = z.object({ link: PublicMeta, content: z.string() });
