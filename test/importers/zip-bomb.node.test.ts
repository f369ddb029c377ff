import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { Deflate, deflateSync, Inflate, strToU8, zipSync } from "fflate";
import { ImportFormatError, readImportFile } from "../../core/importers/read";
import { ZIP_LIMITS } from "../../core/importers/zip";

// Zip bombs for the 1PUX and Proton Pass importers, made here with fflate: a long run of zeros
// deflated a MiB at a time (so the test never holds the expanded bytes either), in a zip whose
// headers say what the test wants them to say.
const ZEROS = 256 * 1024 * 1024;
let bomb: Uint8Array;

beforeAll(() => {
  const parts: Uint8Array[] = [];
  const d = new Deflate({ level: 9 }, (chunk) => void parts.push(chunk));
  const mib = new Uint8Array(1024 * 1024);
  for (let i = 0; i < ZEROS / mib.length; i++) d.push(mib, i === ZEROS / mib.length - 1);
  bomb = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (bomb.set(p, at), at + p.length), 0);
});

afterEach(() => vi.restoreAllMocks());

type Member = { name: string; data: Uint8Array; declared: number; method?: 0 | 8; zip64?: boolean };

/** A zip with the given members, their sizes as declared (true or not); CRCs are left at zero. */
function zipOf(members: Member[]): Uint8Array {
  const enc = new TextEncoder();
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const m of members) {
    const name = enc.encode(m.name);
    const local = new Uint8Array(30 + name.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(4, 20, true);
    lv.setUint16(8, m.method ?? 8, true);
    lv.setUint32(18, m.data.length, true);
    lv.setUint32(22, m.declared, true);
    lv.setUint16(26, name.length, true);
    local.set(name, 30);
    const extra = m.zip64 ? new Uint8Array(20) : new Uint8Array(0);
    if (m.zip64) {
      const xv = new DataView(extra.buffer);
      xv.setUint16(0, 1, true);
      xv.setUint16(2, 16, true);
      xv.setBigUint64(4, BigInt(m.declared), true);
      xv.setBigUint64(12, BigInt(m.data.length), true);
    }
    const central = new Uint8Array(46 + name.length + extra.length);
    const cv = new DataView(central.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint16(4, 20, true);
    cv.setUint16(6, 20, true);
    cv.setUint16(10, m.method ?? 8, true);
    cv.setUint32(20, m.zip64 ? 0xffffffff : m.data.length, true);
    cv.setUint32(24, m.zip64 ? 0xffffffff : m.declared, true);
    cv.setUint16(28, name.length, true);
    cv.setUint16(30, extra.length, true);
    cv.setUint32(42, offset, true);
    central.set(name, 46);
    central.set(extra, 46 + name.length);
    locals.push(local, m.data);
    centrals.push(central);
    offset += local.length + m.data.length;
  }
  const cdSize = centrals.reduce((n, c) => n + c.length, 0);
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, members.length, true);
  ev.setUint16(10, members.length, true);
  ev.setUint32(12, cdSize, true);
  ev.setUint32(16, offset, true);
  const all = [...locals, ...centrals, end];
  const out = new Uint8Array(all.reduce((n, p) => n + p.length, 0));
  all.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  return out;
}

/** How much compressed input reached the inflater: none means nothing was decompressed. */
function inflaterInput() {
  let bytes = 0;
  const push = Inflate.prototype.push;
  vi.spyOn(Inflate.prototype, "push").mockImplementation(function (
    this: Inflate,
    chunk: Uint8Array,
    final?: boolean,
  ) {
    bytes += chunk.length;
    return push.call(this, chunk, final);
  });
  return () => bytes;
}

const ONE_PUX = JSON.stringify({
  accounts: [
    {
      attrs: { name: "Me" },
      vaults: [
        {
          attrs: { name: "Personal" },
          items: [
            {
              uuid: "a",
              state: "active",
              categoryUuid: "001",
              overview: { title: "Bank", url: "https://bank.example" },
              details: {
                loginFields: [
                  { designation: "username", value: "u" },
                  { designation: "password", value: "p" },
                ],
              },
            },
          ],
        },
      ],
    },
  ],
});

describe("zip imports: sizes checked before and while inflating", () => {
  it("the bomb is small and honest about 256 MiB: refused from its header, nothing inflated", async () => {
    expect(bomb.length).toBeLessThan(300 * 1024);
    const inflated = inflaterInput();
    const zip = zipOf([{ name: "export.data", data: bomb, declared: ZEROS }]);
    const err = await readImportFile(zip).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImportFormatError);
    expect((err as Error).message).toBe(
      "export.data declares 256 MiB once unzipped, more than the 32 MiB an export's text may be: the zip file is refused",
    );
    expect(inflated()).toBe(0);
  });

  it("a header that understates the size is refused at the first slice past it, not after 256 MiB", async () => {
    const inflated = inflaterInput();
    const zip = zipOf([{ name: "Proton Pass/data.json", data: bomb, declared: 1000 }]);
    const err = await readImportFile(zip, { format: "proton_pass" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImportFormatError);
    expect((err as Error).message).toBe(
      "Proton Pass/data.json inflates to more than the 1000 bytes its header declares: the zip file is refused",
    );
    // One 4 KiB slice of input (a few MiB out at most) was inflated, not the whole member.
    expect(inflated()).toBe(4096);
  });

  it("members under the limit each but over it together are refused before any is inflated (ZIP64 sizes read too)", async () => {
    const inflated = inflaterInput();
    const third = Math.floor(ZIP_LIMITS.totalBytes / 3) + 1;
    const small = deflateSync(new Uint8Array(10));
    const zip = zipOf(
      ["a.json", "b.json", "c.json"].map((name, i) => ({
        name,
        data: small,
        declared: third,
        zip64: i === 2,
      })),
    );
    await expect(readImportFile(zip)).rejects.toThrow(
      "The zip file's text declares more than 64 MiB once unzipped: it is refused",
    );
    expect(inflated()).toBe(0);
  });

  it("a member holding less than it declares, or stored with a size unlike its header, is refused", async () => {
    const data = deflateSync(strToU8(ONE_PUX));
    await expect(
      readImportFile(zipOf([{ name: "export.data", data, declared: ONE_PUX.length + 1 }])),
    ).rejects.toThrow(
      `export.data holds ${ONE_PUX.length} bytes where its header declares ${ONE_PUX.length + 1}`,
    );
    await expect(
      readImportFile(
        zipOf([{ name: "export.data", data: strToU8(ONE_PUX), declared: 5, method: 0 }]),
      ),
    ).rejects.toThrow("export.data is stored with a size that does not match its header");
  });

  it("honest exports still import: deflated, stored, and ZIP64-sized members", async () => {
    const data = deflateSync(strToU8(ONE_PUX));
    for (const zip of [
      zipSync({
        "export.attributes": strToU8('{"version":3}'),
        "export.data": strToU8(ONE_PUX),
        "files/a__scan.pdf": new Uint8Array(3),
      }),
      zipOf([{ name: "export.data", data: strToU8(ONE_PUX), declared: ONE_PUX.length, method: 0 }]),
      zipOf([{ name: "export.data", data, declared: ONE_PUX.length, zip64: true }]),
    ]) {
      const out = await readImportFile(zip);
      expect(out.format).toBe("onepux");
      expect(out.credentials.map((c) => [c.name, c.username, c.password])).toEqual([
        ["Bank", "u", "p"],
      ]);
    }
  });
});
