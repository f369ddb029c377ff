/** `vault run`'s masking (cli/run.ts, Masker): every secret replaced, however the output is cut. */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { MASK, Masker } from "../../cli/run";

function masked(secrets: string[], chunks: string[]): string {
  const out = new PassThrough();
  let text = "";
  out.on("data", (d: Buffer) => (text += d.toString("utf8")));
  const m = new Masker(secrets, out);
  for (const c of chunks) m.write(Buffer.from(c, "utf8"));
  m.flush();
  out.read();
  return text;
}

describe("Masker", () => {
  it("masks a secret written whole, and leaves other text as it was", () => {
    expect(masked(["hunter22"], ["pw=hunter22 ok\n"])).toBe(`pw=${MASK} ok\n`);
  });

  it("masks a secret cut across writes at every point", () => {
    const line = "token s3cr3t-value end";
    for (let cut = 1; cut < line.length; cut++)
      expect(masked(["s3cr3t-value"], [line.slice(0, cut), line.slice(cut)])).toBe(
        `token ${MASK} end`,
      );
  });

  it("masks a secret split inside a multi-byte character and a secret written byte by byte", () => {
    const bytes = Buffer.from("a=pässwörd;", "utf8");
    const out = new PassThrough();
    let text = "";
    out.on("data", (d: Buffer) => (text += d.toString("utf8")));
    const m = new Masker(["pässwörd"], out);
    for (const b of bytes) m.write(Buffer.from([b]));
    m.flush();
    expect(text).toBe(`a=${MASK};`);
  });

  it("masks the longer of two overlapping secrets first", () => {
    expect(masked(["abc", "abcdef"], ["x abcdef y abc\n"])).toBe(`x ${MASK} y ${MASK}\n`);
  });

  it("lets out what it holds after a quiet spell, so a prompt is not kept back", async () => {
    const out = new PassThrough();
    let text = "";
    out.on("data", (d: Buffer) => (text += d.toString("utf8")));
    const m = new Masker(["a-long-secret-value"], out);
    m.write(Buffer.from("Continue? "));
    expect(text).toBe("");
    await new Promise((r) => setTimeout(r, 120));
    expect(text).toBe("Continue? ");
  });
});
