import { env } from "cloudflare:test";
import { expect } from "vitest";
import { buildUploadBody, type ParentType, type UploadBody } from "../../core/crypto/attachments";
import type { TestUser } from "./auth";
import { createEntry } from "./fixtures";

export type Listed = {
  id: string;
  parent_id: string;
  parent_type: ParentType;
  size: number;
  created_at: string;
  encrypted_filename: { iv: string; ciphertext: string };
  encrypted_mime_type: { iv: string; ciphertext: string };
};

export async function vaultKey(): Promise<CryptoKey> {
  return (await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, [
    "wrapKey",
    "unwrapKey",
  ])) as CryptoKey;
}

export function randomBytes(n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i += 65536)
    crypto.getRandomValues(out.subarray(i, Math.min(n, i + 65536)));
  return out;
}

/** A parent of the given type owned by the user: a real password entry, or a note or item row. */
export async function createParent(
  user: TestUser,
  type: ParentType = "password",
): Promise<{ id: string; type: ParentType }> {
  if (type === "password") return { id: (await createEntry(user)).id, type };
  const id = crypto.randomUUID();
  const table = type === "note" ? "notes" : "vault_items";
  await env.DB.prepare(`INSERT INTO ${table} (id, user_id, created_at) VALUES (?, ?, ?)`)
    .bind(id, user.id, new Date().toISOString())
    .run();
  return { id, type };
}

export async function encryptedBody(
  parent: { id: string; type: ParentType },
  bytes = 1024,
  key?: CryptoKey,
): Promise<UploadBody> {
  return buildUploadBody(key ?? (await vaultKey()), parent, {
    content: randomBytes(bytes),
    filename: "report.pdf",
    mimeType: "application/pdf",
  });
}

export async function upload(user: TestUser, body: UploadBody): Promise<Listed> {
  const res = await user.call("POST", "/api/vault/attachments", { body });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { attachment: Listed }).attachment;
}

export async function r2Keys(userId: string): Promise<string[]> {
  const listed = await env.ATTACHMENTS.list({ prefix: `attachments/${userId}/` });
  return listed.objects.map((o) => o.key);
}

export async function rowCount(userId: string): Promise<number> {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM attachments WHERE user_id = ?")
    .bind(userId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}
