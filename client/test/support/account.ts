/** Helpers for the journeys of docs/decisions/client.md, "Client: entry tools and account pages" (entry tools and account pages). */
import { deflateSync } from "node:zlib";
import { encode } from "uqr";
import { apiAs } from "./api";
import { fillEntry, newUser, openEntry, waitForPending, type Browser, type Page } from "./browser";
import { base, personContext } from "./journey";
import { signInWithEntries, type SeedEntry } from "./seed";

/**
 * A new user signed in through the page, with the API as another client of theirs sees it. The
 * `entries` are in the vault before the sign-in (seed.ts), listed once it is done.
 */
export async function signedInPerson(
  browser: Browser,
  prefix: string,
  passphrase = `${prefix} passphrase 16`,
  entries: SeedEntry[] = [],
) {
  const user = await newUser(prefix);
  const { context, page } = await personContext(browser);
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await signInWithEntries(page, user, passphrase, entries);
  return { user, context, page, api: await apiAs(base(), user.token) };
}

/** The entry syncedEntry adds, by name: for a vault seeded with it instead. */
export const namedEntry = (name: string): SeedEntry => ({
  name,
  website: `${name.toLowerCase().replace(/\W+/g, "")}.example`,
  username: "alice",
  password: `pw-${name}`,
});

/** The server row of an entry by name (one seeded, or one the page has pushed). */
export async function serverEntry(api: Awaited<ReturnType<typeof apiAs>>, name: string) {
  const row = (await api.entries()).get(name);
  if (!row) throw new Error(`${name} is not on the server`);
  return row as { id: string; name: string };
}

/** Adds an entry through the form, waits until it is on the server, and returns its server row. */
export async function syncedEntry(
  page: Page,
  api: Awaited<ReturnType<typeof apiAs>>,
  name: string,
) {
  await fillEntry(page, namedEntry(name));
  await waitForPending(page, 0);
  return serverEntry(api, name);
}

/**
 * Opens an entry in the vault section and one of its tools: the one-time code sits in the details,
 * the others are tabs of the entry. An entry already open is closed first (see openEntry).
 */
export async function openEntryTool(page: Page, entryName: string, tool: string) {
  await openEntry(page, entryName);
  if (tool !== "totp") await page.locator(`#detail-tabs [data-tab="${tool}"]`).click();
  const box = page.locator(`#entry-tools section[data-tool="${tool}"]`);
  await box.waitFor();
  return box;
}

function crc32(buf: Uint8Array): number {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  body.copy(out, 4);
  out.writeUInt32BE(crc32(body), 8 + data.length);
  return out;
}

/** A greyscale PNG (RFC 2083) of a QR code of `text`, as a phone screenshot of an enrolment page would hold. */
export function qrPng(text: string, scale = 6): Buffer {
  const qr = encode(text, { ecc: "M", border: 4 });
  const side = qr.size * scale;
  const raw = Buffer.alloc(side * (side + 1));
  for (let y = 0; y < side; y++) {
    raw[y * (side + 1)] = 0; // filter: none
    for (let x = 0; x < side; x++)
      raw[y * (side + 1) + 1 + x] = qr.data[Math.floor(y / scale)]![Math.floor(x / scale)]
        ? 0
        : 255;
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", new Uint8Array()),
  ]);
}
