import { cpSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

/**
 * The development provider's key is made once per checkout (.dev/idp-private.jwk.json). On a fresh
 * clone the browser suite's server sets start their providers at the same moment: each must end up
 * with the one key the worker's IDP_JWKS holds, or one set's provider signs ID tokens the worker
 * refuses ("The ID token is not valid for this sign-in").
 */
const root = mkdtempSync(join(tmpdir(), "dev-key-"));
cpSync("scripts/lib", join(root, "scripts/lib"), { recursive: true });
symlinkSync(join(process.cwd(), "node_modules"), join(root, "node_modules"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("the development provider's key on a fresh checkout", () => {
  it("callers at once all get the key that was written", async () => {
    const { ensureKey } = await import(join(root, "scripts/lib/dev-identity.mjs"));
    const keys = await Promise.all(Array.from({ length: 4 }, () => ensureKey()));
    const again = await ensureKey();
    for (const k of keys) expect(k.kid).toBe(again.kid);
  });
});
