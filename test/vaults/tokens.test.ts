import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { bindingOf, directoryBinding } from "../../src/db/shards";
import { expectErrorBody, TestUser } from "../support/auth";
import { addEntry, createVault, join, wrapped } from "../support/vaults";
import { SELF } from "../support/worker";

type Token = {
  id: string;
  vault_id: string;
  name: string;
  state: string;
  last_used_at: string | null;
  revoked_reason: string | null;
};
type Read = { token_id: string; token_name: string; reason: string | null; entries: number };

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
const hex = (buf: ArrayBuffer) =>
  [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");

/** A token as a client makes it: its id, an authenticator and the hash the server keeps. */
async function newToken() {
  const id = crypto.randomUUID();
  const authenticator = b64url(crypto.getRandomValues(new Uint8Array(32)));
  const hash = hex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(authenticator)));
  return { id, authenticator, hash, header: `${id}.${authenticator}` };
}

const inDays = (d: number) => new Date(Date.now() + d * 86_400_000).toISOString();

async function makeToken(user: TestUser, vaultId: string, name = "CI deploy", keyVersion = 1) {
  const t = await newToken();
  const key = wrapped();
  const res = await user.call("POST", `/api/vaults/${vaultId}/tokens`, {
    body: {
      token_id: t.id,
      name,
      expires_at: inDays(30),
      key_version: keyVersion,
      wrapped_key: key,
      auth_hash: t.hash,
    },
  });
  expect(res.status).toBe(201);
  return { ...t, key, token: ((await res.json()) as { token: Token }).token };
}

const read = (header: string | null, reason?: string) =>
  SELF.fetch("https://vault.test/api/token/vault", {
    headers: {
      ...(header !== null ? { "x-vault-token": header } : {}),
      ...(reason !== undefined ? { "x-vault-reason": reason } : {}),
    },
  });

async function readsOf(user: TestUser, tokenId?: string): Promise<Read[]> {
  const res = await user.call("GET", `/api/tokens/reads${tokenId ? `?token_id=${tokenId}` : ""}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { reads: Read[] }).reads;
}

async function tokensOf(user: TestUser): Promise<Token[]> {
  const res = await user.call("GET", "/api/tokens");
  expect(res.status).toBe(200);
  return ((await res.json()) as { tokens: Token[] }).tokens;
}

describe("machine tokens", () => {
  it("made, read with a reason (ciphertext and the key copy), logged, listed with its last use, revoked at once", async () => {
    const owner = await TestUser.create();
    const vault = await createVault(owner);
    const e = await addEntry(owner, vault.id);
    const t = await makeToken(owner, vault.id);
    expect(t.token).toMatchObject({ vault_id: vault.id, name: "CI deploy", state: "active" });

    const res = await read(t.header, encodeURIComponent("deploy: résumé build #12"));
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = (await res.json()) as {
      wrapped_key: string;
      vault: { id: string; key_version: number };
      entries: { id: string; encrypted_data: string }[];
    };
    expect(body.wrapped_key).toBe(t.key);
    expect(body.vault).toMatchObject({ id: vault.id, key_version: 1 });
    expect(body.entries.map((x) => x.id)).toEqual([e.id]);
    expect(JSON.stringify(body)).not.toContain(t.hash);

    expect(await readsOf(owner)).toEqual([
      expect.objectContaining({
        token_id: t.id,
        token_name: "CI deploy",
        reason: "deploy: résumé build #12",
        entries: 1,
      }),
    ]);
    expect((await read(t.header)).status).toBe(200);
    expect((await readsOf(owner, t.id)).map((r) => r.reason)).toEqual([
      null,
      "deploy: résumé build #12",
    ]);
    const listed = await tokensOf(owner);
    expect(listed).toHaveLength(1);
    expect(listed[0]!.last_used_at).not.toBeNull();

    const revoked = await owner.call("DELETE", `/api/tokens/${t.id}`);
    expect(revoked.status).toBe(200);
    expect(((await revoked.json()) as { token: Token }).token).toMatchObject({
      state: "revoked",
      revoked_reason: "owner",
    });
    const refused = await expectErrorBody(await read(t.header, "again"), 401, "UNAUTHORIZED");
    expect(refused.error).toMatch(/revoked/);
    expect(await readsOf(owner, t.id)).toHaveLength(2);
    // Revoking again changes nothing.
    expect((await owner.call("DELETE", `/api/tokens/${t.id}`)).status).toBe(200);
  });

  it("refuses a missing, malformed, unknown or wrong token alike, and logs nothing", async () => {
    const owner = await TestUser.create();
    const vault = await createVault(owner);
    const t = await makeToken(owner, vault.id);
    const other = await newToken();
    for (const header of [
      null,
      "",
      "vtk_something",
      `${t.id}.short`,
      other.header,
      `${t.id}.${other.authenticator}`,
    ]) {
      const body = await expectErrorBody(await read(header), 401, "UNAUTHORIZED");
      expect(body.error).not.toMatch(/revoked|expired/);
    }
    expect(await readsOf(owner)).toEqual([]);
  });

  it("a bad reason is refused before the read and nothing is logged", async () => {
    const owner = await TestUser.create();
    const vault = await createVault(owner);
    const t = await makeToken(owner, vault.id);
    for (const reason of ["x".repeat(201), "%E0%A4%A", encodeURIComponent("line\nbreak")])
      await expectErrorBody(await read(t.header, reason), 400, "VALIDATION_ERROR");
    expect(await readsOf(owner)).toEqual([]);
    expect((await tokensOf(owner))[0]!.last_used_at).toBeNull();
  });

  it("an expired token is refused at once and its read is not logged", async () => {
    const owner = await TestUser.create();
    const vault = await createVault(owner);
    const t = await makeToken(owner, vault.id);
    const e = env as unknown as Record<string, unknown>;
    await bindingOf(e, directoryBinding(e))
      .prepare("UPDATE vault_tokens SET expires_at = ? WHERE id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), t.id)
      .run();
    const refused = await expectErrorBody(await read(t.header, "late"), 401, "UNAUTHORIZED");
    expect(refused.error).toMatch(/expired/);
    expect(await readsOf(owner)).toEqual([]);
    expect((await tokensOf(owner))[0]).toMatchObject({ state: "expired", last_used_at: null });
  });

  it("validates the body, needs a recent sign-in and membership, and makes nothing on refusal", async () => {
    const owner = await TestUser.create();
    const vault = await createVault(owner);
    const t = await newToken();
    const good = {
      token_id: t.id,
      name: "agent",
      expires_at: inDays(7),
      key_version: 1,
      wrapped_key: wrapped(),
      auth_hash: t.hash,
    };
    for (const bad of [
      { ...good, token_id: "not-a-uuid" },
      { ...good, name: "" },
      { ...good, name: "a\u0007b" },
      { ...good, expires_at: new Date(Date.now() - 1000).toISOString() },
      { ...good, expires_at: inDays(400) },
      { ...good, expires_at: "tomorrow" },
      { ...good, auth_hash: "ABC" },
      { ...good, wrapped_key: "" },
      { ...good, key_version: 0 },
    ])
      await expectErrorBody(
        await owner.call("POST", `/api/vaults/${vault.id}/tokens`, { body: bad }),
        400,
        "VALIDATION_ERROR",
      );
    const stale = await owner.withToken({ authAge: 3600 });
    await expectErrorBody(
      await stale.call("POST", `/api/vaults/${vault.id}/tokens`, { body: good }),
      401,
      "STEP_UP_REQUIRED",
    );
    const stranger = await TestUser.create();
    await expectErrorBody(
      await stranger.call("POST", `/api/vaults/${vault.id}/tokens`, { body: good }),
      404,
      "NOT_FOUND",
    );
    await expectErrorBody(
      await owner.call("POST", `/api/vaults/${vault.id}/tokens`, {
        body: { ...good, key_version: 2 },
      }),
      409,
      "CONFLICT",
    );
    await expectErrorBody(
      await owner.call("POST", `/api/vaults/${vault.id}/tokens`, { body: good, csrf: false }),
      403,
      "FORBIDDEN",
    );
    expect(await tokensOf(owner)).toEqual([]);
    expect(
      (await owner.call("POST", `/api/vaults/${vault.id}/tokens`, { body: good })).status,
    ).toBe(201);
    // The same id again is a conflict, not a second token.
    await expectErrorBody(
      await owner.call("POST", `/api/vaults/${vault.id}/tokens`, { body: good }),
      409,
      "CONFLICT",
    );
    expect(await tokensOf(owner)).toHaveLength(1);
  });

  it("is the owner's alone: another person neither lists, revokes nor reads its log", async () => {
    const owner = await TestUser.create();
    const viewer = await TestUser.create();
    const vault = await createVault(owner);
    await join(owner, vault.id, viewer, "viewer");
    const t = await makeToken(owner, vault.id);
    await read(t.header, "build");
    expect(await tokensOf(viewer)).toEqual([]);
    expect(await readsOf(viewer)).toEqual([]);
    expect(await readsOf(viewer, t.id)).toEqual([]);
    await expectErrorBody(await viewer.call("DELETE", `/api/tokens/${t.id}`), 404, "NOT_FOUND");
    await expectErrorBody(await viewer.call("DELETE", "/api/tokens/nope"), 400, "VALIDATION_ERROR");
    expect((await read(t.header)).status).toBe(200);
    // A viewer may make a token of their own: it reads no more than they do.
    const mine = await makeToken(viewer, vault.id, "viewer's agent");
    expect((await tokensOf(viewer)).map((x) => x.id)).toEqual([mine.token.id]);
    expect((await tokensOf(owner)).map((x) => x.id)).toEqual([t.id]);
  });

  it("stops when its maker leaves the vault (revoked, member_left)", async () => {
    const owner = await TestUser.create();
    const editor = await TestUser.create();
    const vault = await createVault(owner);
    await join(owner, vault.id, editor, "editor");
    const t = await makeToken(editor, vault.id);
    expect((await read(t.header)).status).toBe(200);
    expect(
      (await owner.call("DELETE", `/api/vaults/${vault.id}/members/${editor.id}`)).status,
    ).toBe(200);
    await expectErrorBody(await read(t.header), 403, "FORBIDDEN");
    expect((await tokensOf(editor))[0]).toMatchObject({
      state: "revoked",
      revoked_reason: "member_left",
    });
    await expectErrorBody(await read(t.header), 401, "UNAUTHORIZED");
    expect(await readsOf(editor, t.id)).toHaveLength(1);
  });

  it("a key rotation's commit revokes the vault's tokens (key_rotated); a new one reads", async () => {
    const owner = await TestUser.create();
    const vault = await createVault(owner);
    const other = await createVault(owner);
    const t = await makeToken(owner, vault.id);
    const untouched = await makeToken(owner, other.id, "other vault");
    const begin = await owner.call("POST", `/api/vaults/${vault.id}/rotation`, {
      body: { from_version: 1 },
    });
    expect(begin.status).toBe(200);
    // Not yet committed: the token still reads.
    expect((await read(t.header)).status).toBe(200);
    expect(
      (
        await owner.call("PUT", `/api/vaults/${vault.id}/rotation/keys`, {
          body: { version: 2, wraps: [{ user_id: owner.id, wrapped_key: wrapped() }] },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await owner.call("POST", `/api/vaults/${vault.id}/rotation/commit`, {
          body: { version: 2 },
        })
      ).status,
    ).toBe(200);
    const refused = await expectErrorBody(await read(t.header), 401, "UNAUTHORIZED");
    expect(refused.error).toMatch(/revoked/);
    const listed = await tokensOf(owner);
    expect(listed.find((x) => x.id === t.id)).toMatchObject({ revoked_reason: "key_rotated" });
    expect(listed.find((x) => x.id === untouched.id)?.state).toBe("active");
    expect((await read(untouched.header)).status).toBe(200);
    // A token of the new version reads; one claiming the old version is refused as stale.
    const fresh = await makeToken(owner, vault.id, "after rotation", 2);
    expect((await read(fresh.header)).status).toBe(200);
  });
});
