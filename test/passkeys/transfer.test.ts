import { describe, expect, it } from "vitest";
import { TestUser } from "../support/auth";
import { importEntry, registerDevice, row } from "../sync/helpers";

describe("passkey flags through import and export", () => {
  it("an import keeps has_passkey and passkey_label, and the vault's export carries them back", async () => {
    const user = await TestUser.create();
    const id = crypto.randomUUID();
    const plain = crypto.randomUUID();
    const res = await user.call("POST", "/api/passwords/import", {
      body: {
        provider: "generic",
        entries: [
          importEntry({
            id,
            name: "With passkey",
            website: "webauthn.example",
            has_passkey: true,
            passkey_label: "webauthn.example",
          }),
          importEntry({ id: plain, name: "Plain" }),
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(await row(id)).toMatchObject({ has_passkey: 1, passkey_label: "webauthn.example" });
    expect(await row(plain)).toMatchObject({ has_passkey: 0, passkey_label: null });
    const fp = await registerDevice(user.id, "trusted");
    const doc = (await (
      await user.call("GET", "/api/passwords/export", { headers: { "x-device-fingerprint": fp } })
    ).json()) as {
      entries: { id: string; has_passkey?: boolean; passkey_label?: string | null }[];
    };
    expect(doc.entries.find((e) => e.id === id)).toMatchObject({
      has_passkey: true,
      passkey_label: "webauthn.example",
    });
    expect(doc.entries.find((e) => e.id === plain)).toMatchObject({
      has_passkey: false,
      passkey_label: null,
    });
  });

  it("refuses a flag of the wrong type in an import, storing nothing", async () => {
    const user = await TestUser.create();
    const id = crypto.randomUUID();
    const res = await user.call("POST", "/api/passwords/import", {
      body: { provider: "generic", entries: [importEntry({ id, has_passkey: "yes" })] },
    });
    expect(res.status).toBe(400);
    expect(await row(id)).toBeNull();
  });
});
