import { describe, expect, it } from "vitest";
import { base64EncodeBytes, base64EncodeStream } from "../../src/domains/attachments/base64-stream";
import { toBase64 as bytesToBase64 } from "../../src/kernel/base64";

const ascii = (b: Uint8Array) => new TextDecoder().decode(b);
const random = (n: number) => {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i += 65536) crypto.getRandomValues(out.subarray(i, i + 65536));
  return out;
};

describe("attachments: the streaming base64 encoder", () => {
  it("matches btoa for every length remainder, including the empty input", () => {
    for (let n = 0; n < 20; n++) {
      const bytes = random(n);
      expect(ascii(base64EncodeBytes(bytes)), `length ${n}`).toBe(bytesToBase64(bytes));
    }
    expect(ascii(base64EncodeBytes(new Uint8Array([0xff, 0xfe, 0xfd])))).toBe("//79");
  });

  it("joins chunks of any size into exactly the encoding of the whole", async () => {
    const bytes = random(3 * 256 * 1024 * 2 + 7);
    for (const size of [1000, 65536, 3 * 256 * 1024 + 1]) {
      const source = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < bytes.length; i += size) controller.enqueue(bytes.slice(i, i + size));
          controller.close();
        },
      });
      const parts: string[] = [];
      const reader = source.pipeThrough(base64EncodeStream()).getReader();
      for (let r = await reader.read(); !r.done; r = await reader.read())
        parts.push(ascii(r.value));
      expect(parts.join(""), `chunks of ${size}`).toBe(bytesToBase64(bytes));
    }
  });
});
