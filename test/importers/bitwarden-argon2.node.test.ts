import { describe, expect, it } from "vitest";
import { readImportFile, WrongPasswordError } from "../../core/importers/read";
import { protectedBitwardenExport } from "./bitwarden-export";

// Argon2id runs as WebAssembly (hash-wasm), which workerd refuses to compile at run time: this file
// runs in Node (vitest.node.config.mts); the browser journey opens such a file in Chromium.
const bytes = (s: string) => new TextEncoder().encode(s);

describe("Bitwarden password-protected JSON with Argon2id", () => {
  it("opens with the export password and reads every field; a wrong password may be retried", async () => {
    const plain = {
      encrypted: false,
      folders: [{ id: "f1", name: "Banking" }],
      items: [
        {
          type: 1,
          name: "Argon site",
          folderId: "f1",
          favorite: true,
          notes: "kept",
          fields: [{ name: "PIN", value: "1234", type: 1 }],
          passwordHistory: [{ password: "before", lastUsedDate: "2025-03-01T00:00:00.000Z" }],
          login: {
            username: "ann",
            password: "argon-pass",
            totp: "JBSWY3DPEHPK3PXP",
            uris: [
              { uri: "https://argon.example.com", match: null },
              { uri: "https://m.argon.example.com", match: 1 },
            ],
          },
        },
      ],
    };
    const file = await protectedBitwardenExport(JSON.stringify(plain), "export-pw", 3, {
      memory: 16,
      parallelism: 2,
    });
    expect(JSON.parse(file)).toMatchObject({
      kdfType: 1,
      kdfIterations: 3,
      kdfMemory: 16,
      kdfParallelism: 2,
    });
    await expect(readImportFile(bytes(file))).rejects.toThrow(/protected by a password/);
    await expect(readImportFile(bytes(file), { password: "export-pW" })).rejects.toBeInstanceOf(
      WrongPasswordError,
    );
    const out = await readImportFile(bytes(file), { password: "export-pw" });
    expect(out.format).toBe("source_mgr_1");
    expect(out.skipped).toEqual([]);
    expect(out.credentials).toEqual([
      {
        name: "Argon site",
        url: "https://argon.example.com",
        website: "argon.example.com",
        username: "ann",
        password: "argon-pass",
        notes: "kept",
        totp: "JBSWY3DPEHPK3PXP",
        tags: [],
        folder: "Banking",
        favorite: true,
        kind: "login",
        urls: [{ url: "https://m.argon.example.com", match: "host" }],
        fields: [{ name: "PIN", value: "1234", type: "hidden" }],
        history: [{ password: "before", changed_at: "2025-03-01T00:00:00.000Z" }],
        changes: [],
      },
    ]);
  });

  it("settings out of range are refused before any work", async () => {
    const file = JSON.parse(
      await protectedBitwardenExport("{}", "pw", 3, { memory: 16, parallelism: 1 }),
    ) as Record<string, unknown>;
    await expect(
      readImportFile(bytes(JSON.stringify({ ...file, kdfMemory: 4096 })), { password: "pw" }),
    ).rejects.toThrow(/Argon2 settings are out of range/);
  });
});
