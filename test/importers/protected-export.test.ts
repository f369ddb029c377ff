import { describe, expect, it } from "vitest";
import {
  openIfProtected,
  PasswordNeededError,
  WrongPasswordError,
} from "../../core/importers/read";
import { protectExport } from "../../core/importers/bitwarden-crypto";

// The vault's own password-protected export (the CXF file): written by protectExport, opened by the
// Import page's first step with the password, each refusal naming what it asks for.
describe("a password-protected CXF export", () => {
  const text = JSON.stringify({
    version: { major: 1, minor: 0 },
    accounts: [{ items: [{ title: "Kept secret" }] }],
  });
  const bytes = async () =>
    new TextEncoder().encode(JSON.stringify(await protectExport(text, "the file password", 5000)));

  it("holds nothing in clear, and opens with its password only", async () => {
    const file = await bytes();
    const doc = JSON.parse(new TextDecoder().decode(file)) as Record<string, unknown>;
    expect(doc).toMatchObject({
      encrypted: true,
      passwordProtected: true,
      contents: "cxf",
      kdfType: 0,
      kdfIterations: 5000,
    });
    expect(new TextDecoder().decode(file)).not.toContain("Kept secret");
    await expect(openIfProtected(file)).rejects.toThrow(PasswordNeededError);
    await expect(openIfProtected(file)).rejects.toThrow(
      "This CXF export is protected by a password: enter it to read the file",
    );
    await expect(openIfProtected(file, "not it")).rejects.toThrow(WrongPasswordError);
    await expect(openIfProtected(file, "not it")).rejects.toThrow(
      "The password does not open this CXF export",
    );
    expect(new TextDecoder().decode(await openIfProtected(file, "the file password"))).toBe(text);
  });

  it("leaves any other file as it is", async () => {
    const plain = new TextEncoder().encode(text);
    expect(await openIfProtected(plain)).toBe(plain);
    const csv = new TextEncoder().encode("name,url\n");
    expect(await openIfProtected(csv)).toBe(csv);
  });
});
