/**
 * `vault link` (docs/cli.md, "Secure links"): a secure link to fields of an entry, a file or a
 * text, made as the web app makes one (core/links: sealed here under a fresh key that travels only
 * in the link's fragment; the server stores ciphertext), and the person's links listed or revoked
 * through the routes the web app's Secure links page calls. The options are the web app's
 * (core/ui/link-options.ts): expiry 1 hour, 1 day, 7 days (the default) or 30 days; 1 to 100
 * views (default 1); a passphrase; recipients by email; a hidden sender; a label only the owner reads.
 */
import { readFileSync, statSync } from "node:fs";
import { basename, extname } from "node:path";
import {
  createLink,
  LINK_ENDPOINTS,
  MAX_LABEL_BYTES,
  MAX_LINK_CONTENT_BYTES,
  MAX_LINK_FILE_BYTES,
  sealedBytes,
  type CreateOptions,
  type EntryLinkField,
  type LinkPayload,
  type SecureLink,
} from "../core/links";
import { ask, tryAsk } from "./agent-client";
import { apiFor } from "./device";
import { CliError, EXIT, usage } from "./errors";
import { passphraseFromFd, promptPassphrase } from "./prompt";
import { requireSignIn } from "./state";

type Opts = Record<string, string | boolean | undefined>;
type Lists = Record<string, string[] | undefined>;

/** The web app's expiry choices (core/ui/link-options.ts); the server takes 1 hour to 30 days. */
export const EXPIRY: Record<string, number> = {
  "1h": 3600,
  "1d": 24 * 3600,
  "7d": 7 * 24 * 3600,
  "30d": 30 * 24 * 3600,
};
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A browser names a file's type from its extension; these are the common ones, else bytes. */
const MIME: Record<string, string> = {
  ".txt": "text/plain",
  ".pdf": "application/pdf",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".json": "application/json",
  ".zip": "application/zip",
  ".csv": "text/csv",
};

const str = (v: Opts[string]) => (typeof v === "string" ? v : undefined);

/** Each `-f` names a field by key (`password`) or by its label (`TOTP secret`); none: the web app's ticked ones. */
export function chooseFields(all: EntryLinkField[], wanted: string[], entry: string) {
  if (!wanted.length) return all.filter((f) => f.checked);
  return wanted.map((w) => {
    const k = w.trim().toLowerCase();
    const f = all.find((a) => a.key === k || a.label.toLowerCase() === k);
    if (!f) throw new CliError(`"${entry}" has no ${w} to send`, EXIT.NOT_FOUND);
    return f;
  });
}

function options(o: Opts, lists: Lists): CreateOptions {
  const expires = str(o.expires) ?? "7d";
  if (!(expires in EXPIRY)) throw usage("--expires takes 1h, 1d, 7d or 30d");
  const views = Number(str(o["max-views"]) ?? 1);
  if (!Number.isInteger(views) || views < 1 || views > 100)
    throw usage("--max-views takes a whole number from 1 to 100");
  const recipients = [...new Set((lists.recipient ?? []).map((r) => r.trim()))];
  if (recipients.length > 10) throw usage("--recipient: at most 10 email addresses");
  const bad = recipients.find((r) => !EMAIL.test(r));
  if (bad !== undefined) throw usage(`--recipient: "${bad}" is not an email address`);
  const label = str(o.label)?.trim();
  if (label !== undefined && new TextEncoder().encode(label).length > MAX_LABEL_BYTES)
    throw usage(`--label is longer than ${MAX_LABEL_BYTES} bytes`);
  return {
    expiresInSeconds: EXPIRY[expires]!,
    maxViews: views,
    hideSender: o["hide-sender"] === true,
    recipients: recipients.length ? recipients : undefined,
    label: label || undefined,
  };
}

function readFd(text: string, what: string): string {
  const fd = Number(text);
  if (!Number.isInteger(fd) || fd < 0)
    throw usage(`--${what} takes a file descriptor number, not "${text}"`);
  try {
    return readFileSync(fd, "utf8");
  } catch (e) {
    throw usage(`File descriptor ${fd} is not readable: ${(e as Error).message}`);
  }
}

function fileOf(path: string): LinkPayload {
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new Error("not a file");
    size = st.size;
  } catch (e) {
    throw new CliError(`${path} cannot be read: ${(e as Error).message}`, EXIT.FAILED);
  }
  // Refused before reading or sealing: the server would refuse the body, and nothing is made.
  if (size > MAX_LINK_FILE_BYTES) throw tooLarge(path);
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(readFileSync(path));
  } catch (e) {
    throw new CliError(`${path} cannot be read: ${(e as Error).message}`, EXIT.FAILED);
  }
  const mime = MIME[extname(path).toLowerCase()] ?? "application/octet-stream";
  const p: LinkPayload = { type: "file", name: basename(path), mime, bytes };
  if (sealedBytes(p) > MAX_LINK_CONTENT_BYTES) throw tooLarge(path);
  return p;
}

const tooLarge = (path: string) =>
  new CliError(
    `${path} is too large for a link: it carries at most 25 MB (${MAX_LINK_FILE_BYTES} bytes), the file's name and type included`,
    EXIT.FAILED,
  );

/** What the link carries: exactly one of <entry>, --file and --text-fd. */
async function payloadOf(args: string[], o: Opts, lists: Lists): Promise<LinkPayload> {
  const file = str(o.file);
  const textFd = str(o["text-fd"]);
  if ([args.length > 0, file !== undefined, textFd !== undefined].filter(Boolean).length !== 1)
    throw usage("vault link takes one of: an entry, --file <path>, --text-fd <n>");
  if (args.length > 1) throw usage("vault link takes one entry");
  if ((lists.field ?? []).length && !args.length) throw usage("--field goes with an entry");
  if (file !== undefined) return fileOf(file);
  if (textFd !== undefined) {
    const text = readFd(textFd, "text-fd");
    if (!text.trim()) throw usage("The text to share is empty");
    return { type: "text", fields: [{ label: "Secret", value: text }] };
  }
  const entry = args[0]!;
  const all = (await ask({ op: "linkFields", entry })).fields as EntryLinkField[];
  const chosen = chooseFields(all, lists.field ?? [], entry);
  if (!chosen.length) throw new CliError(`"${entry}" has no field to send`, EXIT.NOT_FOUND);
  return { type: "text", fields: chosen.map((f) => ({ label: f.label, value: f.value })) };
}

export async function makeLink(args: string[], o: Opts, lists: Lists) {
  const opts = options(o, lists);
  const fd = str(o["passphrase-fd"]);
  if (fd !== undefined && fd === str(o["text-fd"]))
    throw usage("--text-fd and --passphrase-fd name one descriptor: give two");
  const payload = await payloadOf(args, o, lists);
  if (fd !== undefined) opts.passphrase = passphraseFromFd(fd);
  else if (o.passphrase === true)
    opts.passphrase = await promptPassphrase("Passphrase for the link: ");
  if ((fd !== undefined || o.passphrase === true) && !opts.passphrase)
    throw usage("The link's passphrase is empty");
  // The label is sealed under the vault key, which only the agent holds.
  if (opts.label)
    opts.sealedLabel = (await ask({ op: "sealLinkLabel", label: opts.label })).sealed as {
      iv: string;
      ciphertext: string;
    };
  const { server } = requireSignIn();
  const api = await apiFor(server);
  const { url, link } = await createLink(api, payload, opts, undefined, server);
  return { id: link.id, url, expires_at: link.expires_at, max_views: link.max_views };
}

export async function listLinks() {
  const api = await apiFor(requireSignIn().server);
  const r = await api.request(LINK_ENDPOINTS.list);
  // Labels open only under the vault key: shown when the vault is unlocked, left out when not.
  const sealed = r.links.map((l) => l.label);
  const opened = sealed.some(Boolean)
    ? ((await tryAsk({ op: "openLinkLabels", labels: sealed }).catch(() => null))?.labels as
        | (string | null)[]
        | undefined)
    : undefined;
  return {
    links: r.links.map((l, i) => ({ ...view(l), label: opened?.[i] ?? null })),
    usage: r.usage,
  };
}

const view = (l: SecureLink) => ({
  id: l.id,
  kind: l.kind,
  state: l.state,
  views_used: l.views_used,
  max_views: l.max_views,
  expires_at: l.expires_at,
  created_at: l.created_at,
  last_opened_at: l.last_opened_at,
  has_passphrase: l.has_passphrase,
  recipients: l.recipients,
});

export async function revokeLink(id: string) {
  const api = await apiFor(requireSignIn().server);
  const { link } = await api.request(LINK_ENDPOINTS.revoke, { params: { id } });
  return view(link);
}
