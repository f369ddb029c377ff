import { describe, expect, it } from "vitest";
import { toBase64 } from "../../src/kernel/base64";
import { expectErrorBody, TestUser } from "../support/auth";
import { linkRow, sealed } from "../support/links";

// The owner's label is sealed by the owner's browser: the server takes only an AES-GCM part
// ({iv, ciphertext}), stores it as given and hands it back to its owner alone.
describe("secure links: the owner's label", () => {
  it("holds only the sealed part, refuses a label in clear, and shows it to the owner only", async () => {
    const owner = await TestUser.create();
    const { content } = await sealed("secret");
    const base = { kind: "text", content, expires_in_seconds: 3600, max_views: 1 };
    const label = {
      iv: toBase64(crypto.getRandomValues(new Uint8Array(12))),
      ciphertext: toBase64(crypto.getRandomValues(new Uint8Array(40))),
    };
    for (const bad of [
      "Wi-Fi for the plumber",
      { iv: label.iv },
      { ...label, ciphertext: toBase64(new Uint8Array(300)) },
      { ...label, text: "Wi-Fi" },
    ]) {
      await expectErrorBody(
        await owner.call("POST", "/api/links", { body: { ...base, label: bad } }),
        400,
        "VALIDATION_ERROR",
      );
    }
    const res = await owner.call("POST", "/api/links", { body: { ...base, label } });
    expect(res.status).toBe(201);
    const { link } = (await res.json()) as { link: { id: string; label: unknown } };
    expect(link.label).toEqual(label);
    expect(JSON.parse(String((await linkRow(link.id))!.encrypted_label))).toEqual(label);
    const list = (await (await owner.call("GET", "/api/links")).json()) as {
      links: { id: string; label: unknown }[];
    };
    expect(list.links.find((l) => l.id === link.id)?.label).toEqual(label);
    const other = await TestUser.create();
    const theirs = (await (await other.call("GET", "/api/links")).json()) as { links: unknown[] };
    expect(theirs.links).toEqual([]);
    const { SELF } = await import("../support/worker");
    const meta = await (
      await SELF.fetch(`https://vault.test/api/links/public/${link.id}`, {
        headers: { "cf-connecting-ip": "198.51.100.230" },
      })
    ).text();
    expect(meta).not.toContain(label.ciphertext);
  });
});
